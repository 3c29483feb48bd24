import { execFileSync } from 'node:child_process';

/**
 * One scrape of /metrics over real HTTP, parsed by the Prometheus project's own text-format
 * parser (python3-prometheus-client, Debian's python), with lookups by sample name and labels.
 */
export interface Scrape {
  contentType: string;
  /** Names of the metric families. */
  families: Set<string>;
  /** The sample's value (histograms: `name_count`, `name_bucket`...), or undefined when none has these labels. */
  value(sample: string, labels?: Record<string, string>): number | undefined;
}

export const debianPython = '/usr/bin/python3';

const parser = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = {"families": [], "samples": []}
for family in text_string_to_metric_families(sys.stdin.read()):
    out["families"].append(family.name)
    for s in family.samples:
        out["samples"].append([s.name, s.labels, s.value])
print(json.dumps(out))
`;

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
  const parsed = JSON.parse(
    execFileSync(debianPython, ['-c', parser], { input: await res.text(), encoding: 'utf8', timeout: 30_000 }),
  ) as { families: string[]; samples: Array<[string, Record<string, string>, number]> };
  return {
    contentType: res.headers.get('content-type') ?? '',
    families: new Set(parsed.families),
    value: (sample, labels = {}) =>
      parsed.samples.find(([name, l]) => name === sample && Object.entries(labels).every(([k, v]) => l[k] === v))?.[2],
  };
}
