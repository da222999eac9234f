// How Polymarket words a shared-world proposition: question, slug stem, description, resolution source, icon and
// tags, per topic. A binary proposition is one Yes/No market; a multi-option one is a neg-risk event whose markets
// each ask "Will <option> …?". Pure text, no state.
import { ownValue } from '../shared/own-key.js';
import type { Proposition } from '../shared/world.js';

export interface PmTag {
  id: string;
  label: string;
  slug: string;
}

export interface Phrase {
  question: string;
  slug: string;
  description: string;
}

export interface EventPhrase extends Phrase {
  /** Short label a binary market shows as its groupItemTitle (neg-risk markets use the option). */
  label: string;
  resolutionSource: string;
  image: string;
  tags: PmTag[];
  seriesSlug: string;
}

const MONTHS = [
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

const TAGS: Record<string, PmTag> = {
  sports: { id: '1', label: 'Sports', slug: 'sports' },
  politics: { id: '2', label: 'Politics', slug: 'politics' },
  crypto: { id: '21', label: 'Crypto', slug: 'crypto' },
  weather: { id: '84', label: 'Weather', slug: 'weather' },
  elections: { id: '144', label: 'Elections', slug: 'elections' },
  fed: { id: '159', label: 'Fed Rates', slug: 'fed-rates' },
  bitcoin: { id: '235', label: 'Bitcoin', slug: 'bitcoin' },
  ethereum: { id: '39', label: 'Ethereum', slug: 'ethereum' },
  solana: { id: '818', label: 'Solana', slug: 'solana' },
  nba: { id: '745', label: 'NBA', slug: 'nba' },
  economy: { id: '100328', label: 'Economy', slug: 'economy' },
};

export const ALL_TAGS: readonly PmTag[] = Object.values(TAGS);

const UPLOADS = 'https://polymarket-upload.s3.us-east-2.amazonaws.com';

export function kebab(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function day(p: Proposition): { text: string; slug: string; iso: string } {
  const d = p.closeTime;
  const month = MONTHS[d.getUTCMonth()] ?? 'January';
  return {
    text: `${month} ${d.getUTCDate()}`,
    slug: `${month.toLowerCase()}-${d.getUTCDate()}`,
    iso: d.toISOString().slice(0, 10),
  };
}

function usd(n: number): string {
  return `$${n.toLocaleString('en-US')}`;
}

function shortUsd(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

const YES_NO = (yes: string, deadline: string) =>
  `This market will resolve to "Yes" if ${yes}. Otherwise, this market will resolve to "No".\n\n${deadline}`;

/** Slug stem of the event (and of a binary proposition's only market); cheap, computed for every event at start. */
export function eventSlug(p: Proposition): string {
  const when = day(p);
  switch (p.topic) {
    case 'crypto':
      return `${kebab(p.subject)}-above-${shortUsd(p.threshold ?? 0)}-on-${when.slug}`;
    case 'economics':
      return p.threshold !== null && p.threshold > 0
        ? `fed-cuts-${p.threshold}-bps-before-${when.slug}`
        : `fed-holds-rates-before-${when.slug}`;
    case 'politics':
      return `${kebab(p.subject)}-election-winner-${when.slug}`;
    case 'sports': {
      const [home = 'Home', away = 'Away'] = p.subject.split(' vs ');
      return `nba-${kebab(home).slice(0, 3)}-${kebab(away).slice(0, 3)}-${when.iso}`;
    }
    default:
      return `highest-temperature-in-${kebab(p.subject.replace(/^the high temperature in /, ''))}-above-${p.threshold}f-on-${when.slug}`;
  }
}

export function optionSlug(p: Proposition, option: string): string {
  return `will-${kebab(option)}-win-the-election-for-${kebab(p.subject)}-${day(p).slug}`;
}

/** The event (and, for a binary proposition, its only market). */
export function phraseEvent(p: Proposition): EventPhrase {
  const slug = eventSlug(p);
  const when = day(p);
  const deadline = `The resolution source is listed below. This market closes at 11:59 PM UTC on ${when.text}.`;
  switch (p.topic) {
    case 'crypto': {
      const coin = p.subject;
      const tag = ownValue(TAGS, coin.toLowerCase()) ?? TAGS.crypto;
      const price = usd(p.threshold ?? 0);
      return {
        question: `Will the price of ${coin} be above ${price} on ${when.text}?`,
        label: (p.threshold ?? 0).toLocaleString('en-US'),
        slug,
        description: YES_NO(
          `the Binance 1 minute candle for ${coin} at 23:59 UTC on ${when.text} has a final close price above ${price}`,
          deadline,
        ),
        resolutionSource: 'https://www.binance.com/en/trade',
        image: `${UPLOADS}/${kebab(coin)}-fullsize.png`,
        tags: [TAGS.crypto as PmTag, tag as PmTag],
        seriesSlug: `${kebab(coin)}-multi-strikes-daily`,
      };
    }
    case 'economics': {
      const cut = p.threshold !== null && p.threshold > 0;
      const what = cut ? `cut rates by ${p.threshold} bps` : 'hold rates unchanged';
      return {
        question: `Will the Fed ${what} at the meeting before ${when.text}?`,
        label: cut ? `${p.threshold} bps cut` : 'No change',
        slug,
        description: YES_NO(
          `the Federal Reserve's upper bound target rate is ${cut ? `lowered by ${p.threshold} bps` : 'unchanged'} after its meeting before ${when.text}`,
          deadline,
        ),
        resolutionSource: 'https://www.federalreserve.gov/monetarypolicy/fomccalendars.htm',
        image: `${UPLOADS}/fed-rates.png`,
        tags: [TAGS.economy as PmTag, TAGS.fed as PmTag],
        seriesSlug: 'fed-rates',
      };
    }
    case 'politics': {
      const office = p.subject;
      return {
        question: `Who will win the election for ${office}?`,
        label: office,
        slug,
        description: `This market will resolve to the candidate who wins the election for ${office} held by ${when.text}.\n\n${deadline}`,
        resolutionSource: 'https://apnews.com/hub/election-results',
        image: `${UPLOADS}/${kebab(office)}.png`,
        tags: [TAGS.politics as PmTag, TAGS.elections as PmTag],
        seriesSlug: 'mayoral-elections',
      };
    }
    case 'sports': {
      const [home = 'Home', away = 'Away'] = p.subject.split(' vs ');
      return {
        question: `Will the ${home} beat the ${away} on ${when.text}?`,
        label: home,
        slug,
        description: YES_NO(
          `the ${home} win their game against the ${away} scheduled for ${when.text}`,
          deadline,
        ),
        resolutionSource: 'https://www.nba.com/',
        image: `${UPLOADS}/nba-${kebab(home)}.png`,
        tags: [TAGS.sports as PmTag, TAGS.nba as PmTag],
        seriesSlug: 'nba',
      };
    }
    default: {
      const city = p.subject.replace(/^the high temperature in /, '');
      return {
        question: `Will the highest temperature in ${city} be above ${p.threshold}°F on ${when.text}?`,
        label: `${p.threshold}°F or higher`,
        slug,
        description: YES_NO(
          `the highest temperature recorded in ${city} on ${when.text} is above ${p.threshold}°F`,
          deadline,
        ),
        resolutionSource: 'https://www.wunderground.com/history',
        image: `${UPLOADS}/weather.png`,
        tags: [TAGS.weather as PmTag],
        seriesSlug: `${kebab(city)}-daily-weather`,
      };
    }
  }
}

/** One market of a neg-risk event. */
export function phraseOption(p: Proposition, option: string): Phrase {
  const when = day(p);
  return {
    question: `Will ${option} win the election for ${p.subject}?`,
    slug: optionSlug(p, option),
    description: YES_NO(
      `${option} wins the election for ${p.subject} held by ${when.text}`,
      `This market is part of a group; only one of its markets can resolve to "Yes".`,
    ),
  };
}
