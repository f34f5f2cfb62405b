// `erpsync doctor` as text and JSON. Pure: a report in, lines out.
import type { DoctorReport, DoctorStatus } from '../model/doctor.js';
import { doctorExitCode } from '../model/doctor.js';

const marks: Record<DoctorStatus, string> = { holds: 'ok     ', differs: 'DIFFERS', fails: 'FAILS  ', unknown: '?      ' };

export function renderDoctorText(report: DoctorReport): string[] {
  const count = (status: DoctorStatus) => report.checks.filter((c) => c.status === status).length;
  return [
    report.banner,
    `Doctor: ${report.requests} read-only request(s), no writes.`,
    '',
    ...report.checks.flatMap((c) => [`  ${marks[c.status]}  ${c.subject}: ${c.found}`, ...(c.status === 'holds' ? [] : [`           → ${c.action}`])]),
    '',
    `${count('holds')} hold, ${count('differs')} differ, ${count('fails')} fail, ${count('unknown')} cannot be told (exit ${doctorExitCode(report.checks)}).`,
  ];
}

export function doctorJson(report: DoctorReport): Record<string, unknown> {
  return {
    target: report.target,
    account: report.account,
    requests: report.requests,
    writes: 0,
    exitCode: doctorExitCode(report.checks),
    checks: report.checks,
  };
}
