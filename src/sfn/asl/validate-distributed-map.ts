import { at, type Problems } from './definition-problems.js';
import type { QueryLanguage } from './validate-query-language.js';
import { atMostOne, integerIn, isObj, onlyFields, pathField, payloadTemplate, typed, type Obj } from './validate-values.js';

/**
 * The members only a Map state in Distributed mode has (`ItemProcessor.ProcessorConfig.Mode:
 * DISTRIBUTED`). An inline Map refuses them as unknown fields, as AWS does.
 */
export const DISTRIBUTED_MAP_FIELDS = [
  'Label', 'ItemBatcher', 'ItemReader', 'ResultWriter',
  'ToleratedFailurePercentage', 'ToleratedFailureCount', 'ToleratedFailurePercentagePath', 'ToleratedFailureCountPath',
] as const;

/** AWS: a Label of at most 40 characters, none of the characters a resource name may not hold. */
const LABEL = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,40}$/;

const BATCHER_FIELDS = new Set(['MaxItemsPerBatch', 'MaxItemsPerBatchPath', 'MaxInputBytesPerBatch', 'MaxInputBytesPerBatchPath', 'BatchInput']);

/** Whether a Map state (as written) runs in Distributed mode. */
export function isDistributedMap(s: Obj): boolean {
  const processor = s.ItemProcessor ?? s.Iterator;
  return isObj(processor) && isObj(processor.ProcessorConfig) && processor.ProcessorConfig.Mode === 'DISTRIBUTED';
}

/** ProcessorConfig of a distributed Map: ExecutionType STANDARD (EXPRESS children are not run here yet). */
export function distributedProcessorConfig(p: Problems, configPath: string, config: Obj): void {
  onlyFields(p, configPath, config, new Set(['Mode', 'ExecutionType']));
  if (config.ExecutionType === undefined) {
    p.schema(configPath, 'These fields are required: [ExecutionType]');
  } else if (config.ExecutionType === 'EXPRESS') {
    p.schema(at(configPath, 'ExecutionType'), 'EXPRESS child executions of a Distributed Map are not supported: use ExecutionType STANDARD');
  } else if (config.ExecutionType !== 'STANDARD') {
    p.schema(at(configPath, 'ExecutionType'), 'Value should be one of the following: [STANDARD, EXPRESS]');
  }
}

/** The members of a distributed Map state: Label, the tolerated failures, ItemBatcher; ItemReader and ResultWriter are refused (S3). */
export function distributedMapFields(p: Problems, path: string, s: Obj, language: QueryLanguage): void {
  for (const key of ['ItemReader', 'ResultWriter'] as const) {
    if (s[key] === undefined) continue;
    p.schema(at(path, key), `${key} is not supported: it ${key === 'ItemReader' ? 'reads items from' : 'writes results to'} Amazon S3, which ActorFlow does not reach; give the items in the state input`);
  }
  if (typed(p, path, s, 'Label', 'STRING') && s.Label !== undefined && !LABEL.test(s.Label as string)) {
    p.schema(at(path, 'Label'), 'Label must be at most 40 characters long and may not contain whitespace or any of < > { } [ ] ? * " # % \\ ^ | ~ ` $ & , ; : /');
  }
  if (language === 'JSONPath') {
    atMostOne(p, path, s, ['ToleratedFailurePercentage', 'ToleratedFailurePercentagePath']);
    atMostOne(p, path, s, ['ToleratedFailureCount', 'ToleratedFailureCountPath']);
    pathField(p, path, s, 'ToleratedFailurePercentagePath', 'reference');
    pathField(p, path, s, 'ToleratedFailureCountPath', 'reference');
  } else {
    for (const key of ['ToleratedFailurePercentagePath', 'ToleratedFailureCountPath']) {
      if (s[key] !== undefined) p.schema(path, `The field '${key}' is not supported for JSONata`);
    }
  }
  const jsonataText = (key: string) => language === 'JSONata' && typeof s[key] === 'string';
  if (!jsonataText('ToleratedFailurePercentage') && typed(p, path, s, 'ToleratedFailurePercentage', 'NUMBER') && s.ToleratedFailurePercentage !== undefined) {
    const v = s.ToleratedFailurePercentage as number;
    if (v < 0) p.schema(at(path, 'ToleratedFailurePercentage'), 'Minimum value is 0');
    else if (v > 100) p.schema(at(path, 'ToleratedFailurePercentage'), 'Maximum value is 100');
  }
  if (!jsonataText('ToleratedFailureCount')) integerIn(p, path, s, 'ToleratedFailureCount', 0, Number.MAX_SAFE_INTEGER);
  if (s.ItemBatcher !== undefined && typed(p, path, s, 'ItemBatcher', 'OBJECT')) itemBatcher(p, at(path, 'ItemBatcher'), s.ItemBatcher as Obj, language);
}

function itemBatcher(p: Problems, path: string, b: Obj, language: QueryLanguage): void {
  onlyFields(p, path, b, BATCHER_FIELDS);
  if (b.MaxItemsPerBatch === undefined && b.MaxItemsPerBatchPath === undefined && b.MaxInputBytesPerBatch === undefined && b.MaxInputBytesPerBatchPath === undefined) {
    p.schema(path, 'ItemBatcher needs at least one of MaxItemsPerBatch, MaxItemsPerBatchPath, MaxInputBytesPerBatch, MaxInputBytesPerBatchPath');
  }
  atMostOne(p, path, b, ['MaxItemsPerBatch', 'MaxItemsPerBatchPath']);
  atMostOne(p, path, b, ['MaxInputBytesPerBatch', 'MaxInputBytesPerBatchPath']);
  if (!(language === 'JSONata' && typeof b.MaxItemsPerBatch === 'string')) integerIn(p, path, b, 'MaxItemsPerBatch', 1, Number.MAX_SAFE_INTEGER);
  // AWS: a batch's input may not pass 256 KiB.
  if (!(language === 'JSONata' && typeof b.MaxInputBytesPerBatch === 'string')) integerIn(p, path, b, 'MaxInputBytesPerBatch', 1, 262_144);
  if (language === 'JSONPath') {
    pathField(p, path, b, 'MaxItemsPerBatchPath', 'reference');
    pathField(p, path, b, 'MaxInputBytesPerBatchPath', 'reference');
    payloadTemplate(p, path, b, 'BatchInput');
  } else typed(p, path, b, 'BatchInput', 'OBJECT');
}
