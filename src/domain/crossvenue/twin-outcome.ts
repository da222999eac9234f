// Which outcome of a twin market is the same bet as an outcome of this market. Twins asked the same way round share
// outcome names (case-insensitively: `Yes` and `YES`); a twin asked the other way round ("above" against "at or
// below") is binary, and its Yes is this market's No. Anything else cannot be mapped, and says why.

export type TwinOutcome = { ok: true; name: string } | { ok: false; reason: string };

const lower = (s: string) => s.trim().toLowerCase();

/**
 * The twin's outcome name for `outcome` (one of `own`'s names), given both markets' outcome names and whether the
 * link is inverted.
 */
export function twinOutcome(
  own: readonly string[],
  outcome: string,
  twin: readonly string[],
  inverted: boolean,
): TwinOutcome {
  const wanted = lower(outcome);
  if (!own.some((o) => lower(o) === wanted)) return { ok: false, reason: `no outcome '${outcome}' here` };
  if (!inverted) {
    const same = twin.find((o) => lower(o) === wanted);
    return same !== undefined
      ? { ok: true, name: same }
      : { ok: false, reason: `the twin has no outcome '${outcome}' (outcomes: ${twin.join(', ')})` };
  }
  const binary = (names: readonly string[]) =>
    names.length === 2 && names.some((o) => lower(o) === 'yes') && names.some((o) => lower(o) === 'no');
  if (!binary(own) || !binary(twin)) {
    return { ok: false, reason: 'an inverted link maps only between yes/no markets' };
  }
  const opposite = wanted === 'yes' ? 'no' : 'yes';
  const name = twin.find((o) => lower(o) === opposite) as string;
  return { ok: true, name };
}
