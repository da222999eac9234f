// How Kalshi would word a proposition: series (a recurring template), event ticker and titles, and one market per
// option with its ticker suffix, title, subtitles and rules, in the exchange's own style (`KXBTCD-26NOV30-T99999.99`,
// `KXFEDDECISION-26DEC-C25`, multi-market `KXMAYORNYC-26` elections). Pure text; identifiers are built in catalog.ts.
import { type Proposition, propositionKey } from '../shared/world.js';
import type { SimSeries } from './catalog.js';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
// Maps keyed by a proposition's subject text, which a world may name anything (even `constructor`).
const CITY_CODES: ReadonlyMap<string, string> = new Map([
  ['New York', 'NY'],
  ['Chicago', 'CHI'],
  ['Miami', 'MIA'],
  ['Denver', 'DEN'],
  ['Seattle', 'SEA'],
]);
const TEAM_CODES: ReadonlyMap<string, string> = new Map([
  ['Lakers', 'LAL'],
  ['Celtics', 'BOS'],
  ['Warriors', 'GSW'],
  ['Knicks', 'NYK'],
  ['Bulls', 'CHI'],
  ['Heat', 'MIA'],
  ['Suns', 'PHX'],
  ['Nuggets', 'DEN'],
]);
const COIN_SERIES: ReadonlyMap<string, string> = new Map([
  ['Bitcoin', 'KXBTCD'],
  ['Ethereum', 'KXETHD'],
  ['Solana', 'KXSOLD'],
]);

function dateCode(d: Date): string {
  const yy = String(d.getUTCFullYear() % 100).padStart(2, '0');
  return `${yy}${MONTHS[d.getUTCMonth()]}${String(d.getUTCDate()).padStart(2, '0')}`;
}

function longDate(d: Date): string {
  return `${MONTH_NAMES[d.getUTCMonth()]?.slice(0, 3)} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** 100000 → "100,000"; 169.99 → "169.99" (Intl formatting is too slow for 100k markets). */
function money(n: number): string {
  const [whole = '0', frac] = String(Math.round(n * 100) / 100).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

export interface Phrased {
  series: SimSeries;
  eventBase: string;
  eventTitle: string;
  subTitle: string;
  strikeDate: boolean;
  markets: Array<{
    key: string;
    suffix: string;
    title: string;
    yesSubTitle: string;
    noSubTitle: string;
    rules: string;
    fair: number;
    winner: boolean | null;
    strikeType: string | null;
    floorStrike: number | null;
  }>;
}

export function phrase(p: Proposition): Phrased {
  const close = p.closeTime;
  const day = longDate(close);
  const binaryFair = p.shape.kind === 'binary' ? p.shape.fairYes : 0.5;
  const binaryWinner = p.winner === null ? null : p.winner === 'Yes';
  switch (p.topic) {
    case 'crypto': {
      const series = COIN_SERIES.get(p.subject) ?? 'KXBTCD';
      const threshold = p.threshold ?? 0;
      const strike = threshold - 0.01;
      return {
        series: {
          ticker: series,
          title: `${p.subject} price today`,
          category: 'Crypto',
          tags: [p.subject],
          frequency: 'daily',
        },
        eventBase: `${series}-${dateCode(close)}`,
        eventTitle: `${p.subject} price on ${day}?`,
        subTitle: `On ${day}`,
        strikeDate: true,
        markets: [
          {
            key: propositionKey(p),
            suffix: `T${strike.toFixed(2)}`,
            title: `Will the ${p.subject} price be above $${money(threshold)} on ${day} at 11:59 PM UTC?`,
            yesSubTitle: `$${money(threshold)} or above`,
            noSubTitle: `$${money(threshold)} or above`,
            rules: `If the simple average of the sixty seconds of CF Benchmarks' ${p.subject} Real-Time Index before 11:59 PM UTC on ${day} is above ${money(strike)}, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: 'greater',
            floorStrike: strike,
          },
        ],
      };
    }
    case 'economics': {
      const bps = p.threshold ?? 0;
      const month = MONTH_NAMES[close.getUTCMonth()] ?? '';
      const yy = String(close.getUTCFullYear() % 100).padStart(2, '0');
      const action = bps === 0 ? 'hold rates' : `cut rates by ${bps}bps`;
      return {
        series: {
          ticker: 'KXFEDDECISION',
          title: 'Fed meeting',
          category: 'Economics',
          tags: ['Fed', 'Interest rates'],
          frequency: 'custom',
        },
        eventBase: `KXFEDDECISION-${yy}${MONTHS[close.getUTCMonth()]}`,
        eventTitle: `Fed decision in ${month} ${close.getUTCFullYear()}?`,
        subTitle: `${month} ${close.getUTCFullYear()} meeting`,
        strikeDate: false,
        markets: [
          {
            key: propositionKey(p),
            suffix: bps === 0 ? 'H0' : `C${bps}`,
            title: `Will the Federal Reserve ${action} at their ${month} ${close.getUTCFullYear()} meeting?`,
            yesSubTitle: bps === 0 ? 'Hold' : `Cut ${bps}bps`,
            noSubTitle: bps === 0 ? 'Hold' : `Cut ${bps}bps`,
            rules: `If the Federal Reserve decides to ${action} at its meeting before ${day}, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: null,
            floorStrike: null,
          },
        ],
      };
    }
    case 'politics': {
      const city = p.subject.replace(/^Mayor of /, '');
      const code = CITY_CODES.get(city) ?? city.slice(0, 3).toUpperCase();
      const options = p.shape.kind === 'multi' ? p.shape.options : [];
      return {
        series: {
          ticker: `KXMAYOR${code}`,
          title: `${city} mayoral election`,
          category: 'Elections',
          tags: ['Mayor', city],
          frequency: 'custom',
        },
        eventBase: `KXMAYOR${code}-${String(close.getUTCFullYear() % 100).padStart(2, '0')}`,
        eventTitle: `Who will win the ${city} mayoral election?`,
        subTitle: `Before ${day}`,
        strikeDate: false,
        markets: options.map((o) => {
          const [first = '', ...rest] = o.name.split(' ');
          const last = rest.join('') || first;
          return {
            key: propositionKey(p, o.name),
            suffix: `${first.slice(0, 1)}${last.slice(0, 3)}`.toUpperCase(),
            title: `Will ${o.name} win the ${city} mayoral election?`,
            yesSubTitle: o.name,
            noSubTitle: o.name,
            rules: `If ${o.name} is certified as the winner of the ${city} mayoral election held before ${day}, then the market resolves to Yes.`,
            fair: o.fair,
            winner: p.winner === null ? null : p.winner === o.name,
            strikeType: null,
            floorStrike: null,
          };
        }),
      };
    }
    case 'sports': {
      const [home = 'Home', away = 'Away'] = p.subject.split(' vs ');
      const h = TEAM_CODES.get(home) ?? home.slice(0, 3).toUpperCase();
      const a = TEAM_CODES.get(away) ?? away.slice(0, 3).toUpperCase();
      return {
        series: {
          ticker: 'KXNBAGAME',
          title: 'Professional Basketball Game',
          category: 'Sports',
          tags: ['Basketball'],
          frequency: 'custom',
        },
        eventBase: `KXNBAGAME-${dateCode(close)}${h}${a}`,
        eventTitle: `${home} vs ${away}`,
        subTitle: day,
        strikeDate: true,
        markets: [
          {
            key: propositionKey(p),
            suffix: h,
            title: `Will the ${home} win the ${home} vs ${away} game on ${day}?`,
            yesSubTitle: home,
            noSubTitle: home,
            rules: `If the ${home} win the ${home} vs ${away} professional basketball game originally scheduled for ${day}, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: 'structured',
            floorStrike: null,
          },
        ],
      };
    }
    default: {
      const city = p.subject.replace(/^the high temperature in /, '');
      const code = CITY_CODES.get(city) ?? city.slice(0, 3).toUpperCase();
      const threshold = p.threshold ?? 0;
      return {
        series: {
          ticker: `KXHIGH${code}`,
          title: `Highest temperature in ${city}`,
          category: 'Climate and Weather',
          tags: ['Weather', city],
          frequency: 'daily',
        },
        eventBase: `KXHIGH${code}-${dateCode(close)}`,
        eventTitle: `Highest temperature in ${city} on ${day}?`,
        subTitle: `On ${day}`,
        strikeDate: true,
        markets: [
          {
            key: propositionKey(p),
            suffix: `T${threshold}`,
            title: `Will the high temp in ${city} be >${threshold}° on ${day}?`,
            yesSubTitle: `${threshold + 1}° or above`,
            noSubTitle: `${threshold + 1}° or above`,
            rules: `If the highest temperature recorded in ${city} on ${day} as reported by the National Weather Service is greater than ${threshold}°, then the market resolves to Yes.`,
            fair: binaryFair,
            winner: binaryWinner,
            strikeType: 'greater',
            floorStrike: threshold,
          },
        ],
      };
    }
  }
}
