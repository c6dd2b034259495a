import type { RecoveryProgress } from './recovery-progress.js';

/**
 * Something that keeps live state per partition and must follow partition ownership: the SWF
 * PartitionOwner and the Step Functions execution host. When a node gains partitions it calls
 * `recover` (rebuild their open executions from history); when it loses or hands one over, `releasePartition`.
 */
export interface PartitionHost {
  /** Short name in the recovery progress log (`swf`, `sfn`, `retention`). */
  readonly hostName?: string;
  /** Rebuilds the open executions of these partitions, counting into `progress`; returns how many it rebuilt. */
  recover(partitions: ReadonlySet<number>, totalPartitions: number, progress?: RecoveryProgress): Promise<number>;
  /** Drops every live execution of a partition this node no longer owns (no writes). */
  releasePartition(partition: number): Promise<void>;
}
