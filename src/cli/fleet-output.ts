// Where a fleet's lines go: progress on stdout for text (stderr when stdout carries JSON or
// Markdown), then the table in the chosen format. Shared by plan, apply and drift.
import type { FleetCommand, FleetReport, FleetRow } from '../model/fleet.js';
import { renderFleetJson, renderFleetMarkdown, renderFleetProgress, renderFleetText } from '../report/fleet-report.js';
import type { CliIO } from './io.js';
import { writeLine } from './io.js';

export type FleetFormat = 'text' | 'json' | 'markdown';

export function fleetProgress(command: FleetCommand, format: FleetFormat, io: CliIO): (row: FleetRow, done: number, total: number) => void {
  const out = format === 'text' ? io.stdout : io.stderr;
  return (row, done, total) => writeLine(out, renderFleetProgress(command, row, done, total));
}

export function writeFleetReport(report: FleetReport, format: FleetFormat, io: CliIO): void {
  if (format === 'json') io.stdout.write(renderFleetJson(report));
  else if (format === 'markdown') io.stdout.write(renderFleetMarkdown(report));
  else for (const line of renderFleetText(report)) writeLine(io.stdout, line);
}
