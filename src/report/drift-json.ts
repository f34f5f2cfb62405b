import type { DriftReport } from '../model/drift.js';
// The drift report as JSON (`erpsync drift --json`): the report object itself, stable key order,
// secrets never present (sensitive fields carry no values). Pure.

export function renderDriftJson(report: DriftReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
