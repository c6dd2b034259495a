import type { SfnCase } from '../helpers/sfn-driver.js';
import { CONTROL_CASES } from './sfn-cases-control.js';
import { DATA_CASES } from './sfn-cases-data.js';

/** The table of small state machines run by sfn-compile-table.test.ts (plain and crash-at-every-step). */
export const SFN_CASES: SfnCase[] = [...DATA_CASES, ...CONTROL_CASES];
