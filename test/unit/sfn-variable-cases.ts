export const VARIABLE_CASES = [];
