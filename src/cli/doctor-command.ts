// `erpsync doctor`: checks, with a few read-only requests, whether the assumptions erpsync relies on
// hold for an account (one target, or each store of a fleet), and what erpsync does where they do
// not. The probes are workflows/doctor.ts; this file opens targets and prints.
import { registry } from '../kinds/registry.js';
import type { DoctorReport } from '../model/doctor.js';
import { doctorExitCode } from '../model/doctor.js';
import { exitCodes } from '../model/errors.js';
import type { ExitCode } from '../model/errors.js';
import { worstExitCode } from '../model/fleet.js';
import { doctorJson, renderDoctorText } from '../report/doctor-report.js';
import { diagnoseAccount } from '../workflows/doctor.js';
import { selectFleet } from '../workflows/fleet-workflow.js';
import { openResolvedTarget, resolveRunTarget } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { renderHelp } from './commands.js';
import { doctorFlags, parseCommandFlags } from './flags.js';
import { isFleetRun } from './run-settings.js';
import { readTargetRequest } from './target-request.js';

type StoreDoctor = { name: string; report: DoctorReport } | { name: string; error: string; exitCode: ExitCode };

export async function runDoctorCommand(args: string[], io: RunIO): Promise<number> {
  const { flags } = parseCommandFlags('doctor', doctorFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('doctor'));
    return exitCodes.ok;
  }
  const request = readTargetRequest(flags);
  if (!isFleetRun(flags)) {
    const report = await diagnose(await resolveRunTarget(request, io), request, io);
    if (flags.json) io.stdout.write(`${JSON.stringify(doctorJson(report), null, 2)}\n`);
    else for (const line of renderDoctorText(report)) writeLine(io.stdout, line);
    return doctorExitCode(report.checks);
  }
  // A fleet: each store in turn (a doctor run is a few requests), one failing store not stopping the others.
  const fleet = await selectFleet(request, io);
  const stores: StoreDoctor[] = [];
  for (const name of fleet.names) {
    try {
      stores.push({ name, report: await diagnose(await fleet.resolve(name), request, io) });
    } catch (error) {
      stores.push({ name, error: (error as Error).message, exitCode: (error as { exitCode?: ExitCode }).exitCode ?? exitCodes.error });
    }
  }
  const codes = stores.map((s) => ('report' in s ? doctorExitCode(s.report.checks) : s.exitCode));
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ exitCode: worstExitCode(codes), stores: stores.map((s) => ('report' in s ? doctorJson(s.report) : { target: s.name, error: s.error, exitCode: s.exitCode })) }, null, 2)}\n`);
  } else {
    for (const store of stores) {
      writeLine(io.stdout, `== ${store.name} ==`);
      for (const line of 'report' in store ? renderDoctorText(store.report) : [`error: ${store.error}`]) writeLine(io.stdout, line);
      writeLine(io.stdout, '');
    }
  }
  return worstExitCode(codes);
}

async function diagnose(target: Awaited<ReturnType<typeof resolveRunTarget>>, flags: { debug?: boolean | undefined }, io: RunIO): Promise<DoctorReport> {
  const opened = await openResolvedTarget(target, flags, io);
  try {
    return await diagnoseAccount(opened, registry.units);
  } finally {
    await opened.close();
  }
}
