// Reads a recorded venue payload from test/fixtures/<venue>/ (provenance in each folder's README).
import { readFileSync } from 'node:fs';

export function loadFixture(venue: string, name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/${venue}/${name}`, import.meta.url), 'utf8'));
}
