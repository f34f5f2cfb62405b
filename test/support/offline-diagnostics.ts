// What `validate` says of one manifest file, offline, as the lines it prints: the file is written
// as `m.yaml` in the given folder and loaded with no network, so tests assert on the text itself.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { renderDiagnosticsText } from '../../src/report/diagnostics-report.js';

export async function offlineDiagnostics(dir: string, yaml: string): Promise<string[]> {
  writeFileSync(path.join(dir, 'm.yaml'), yaml);
  const result = await loadManifests(['m.yaml'], { cwd: dir, env: {}, offline: true });
  return renderDiagnosticsText(result.diagnostics);
}
