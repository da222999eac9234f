// `omnibook links --markets FILE.jsonl [--out FILE.jsonl]`: runs the matching engine the server runs over markets
// given as JSON lines (our Market fields; `svc_id`, `exchange` and `question` required) and writes one line per
// link, so anyone can audit the engine on their own data. A line that is not a market is an error naming it;
// nothing is written then.
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Compile } from 'typebox/compile';
import { DEFAULT_CONFIG } from '../config/schema.js';
import { tierRank } from '../domain/matching/confidence.js';
import { MatchInput } from '../domain/matching/features.js';
import { loadLexicon } from '../domain/matching/lexicon.js';
import { MatchEngine } from '../services/matching/match-engine.js';
import { parse, UsageError } from './args.js';

const DEFAULT_MIN_TIER = DEFAULT_CONFIG.matching.minTier;

const HELP = `usage: omnibook links --markets FILE.jsonl [--out FILE.jsonl] [--min-tier HIGH|MEDIUM|LOW] [--lexicon FILE.json]

Reads markets, one JSON object per line (svc_id, exchange, question required; exchange_market_id, svc_group_id,
group_title, description, rules, outcomes, end_date used when present), links them with the same engine the
server runs, and writes one JSON line per link to --out (default: standard output):
  { a, b, relation: same_market | co_dependent, confidence, confidence_tier, source,
    dependency_type?, dependency_direction?, resolution_check?, evidence }
dependency_type: mutually_exclusive | nested_threshold | date_ladder | stage_reached (winning implies reaching a
stage) | settlement_index (one line on two settlement indices the venues state: never same_market, no direction).
dependency_direction reads from a to b: implies (a YES makes b YES), implied_by, exclusive (at most one YES).
resolution_check (every same_market link): { comparable, differences: [deadline | settlement_source |
threshold_inclusive | void_rules | unknown], market: a's side, linked: b's side }, each side's deadline (UTC) and
settlement source where stated.
--min-tier: the lowest tier written (default ${DEFAULT_MIN_TIER}, the server's matching.minTier default; LOW writes all).
--lexicon: an operator lexicon file merged over the built-in one (repeatable).
`;

const check = Compile(MatchInput);

export async function linksCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    markets: { type: 'string' },
    out: { type: 'string' },
    'min-tier': { type: 'string' },
    lexicon: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!values.markets) throw new UsageError('--markets FILE.jsonl is required (omnibook links --help)');
  const minTier = values['min-tier'] ?? DEFAULT_MIN_TIER;
  if (minTier !== 'HIGH' && minTier !== 'MEDIUM' && minTier !== 'LOW')
    throw new UsageError(`--min-tier must be HIGH, MEDIUM or LOW, not ${minTier}`);
  try {
    loadLexicon(values.lexicon ?? []);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // Each market goes into the engine as it is read and each link out as it is found: a million markets never sit
  // in memory as input objects or output lines, only as the engine's own features.
  const engine = new MatchEngine();
  let markets = 0;
  const lines = createInterface({
    input: createReadStream(values.markets, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${values.markets}:${n}: not JSON`);
    }
    if (!check.Check(value)) {
      const first = [...check.Errors(value)][0];
      throw new UsageError(
        `${values.markets}:${n}: ${first ? `${first.instancePath || '/'} ${first.message}` : 'not a market'}`,
      );
    }
    engine.upsert([value]);
    markets++;
  }
  const sink = values.out ? fileSink(values.out) : stdoutSink();
  let chunk = '';
  let links = 0;
  for (const l of engine.streamAll()) {
    if (tierRank(l.tier) < tierRank(minTier)) continue;
    links++;
    chunk += `${JSON.stringify({
      a: l.a,
      b: l.b,
      relation: l.relation,
      confidence: l.confidence,
      confidence_tier: l.tier,
      source: l.source,
      ...(l.relation === 'co_dependent'
        ? { dependency_type: l.dependencyType, dependency_direction: l.direction }
        : { resolution_check: l.resolution }),
      evidence: l.evidence,
    })}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      await sink.write(chunk);
      chunk = '';
    }
  }
  await sink.write(chunk);
  sink.close();
  process.stderr.write(`${markets} markets, ${links} links\n`);
  return 0;
}

const CHUNK_CHARS = 1 << 20;

interface Sink {
  write(text: string): Promise<void>;
  close(): void;
}

function fileSink(path: string): Sink {
  const fd = openSync(path, 'w');
  return {
    write: async (text) => {
      if (text.length > 0) writeSync(fd, text);
    },
    close: () => closeSync(fd),
  };
}

/** Standard output, waiting for it to drain so a slow reader does not make us buffer every line. */
function stdoutSink(): Sink {
  return {
    write: (text) =>
      new Promise((resolve) => {
        if (text.length === 0 || process.stdout.write(text)) resolve();
        else process.stdout.once('drain', () => resolve());
      }),
    close: () => {},
  };
}
