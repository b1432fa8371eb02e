// The entities behind the wiki's articles: 15 cities, 15 rivers, 15 people and 15 inventions with
// their numbers and relations (a city's river, a river's surveyor, an invention's inventor), drawn
// from a seeded rng. Numeric facts are distinct within a kind, so comparisons never tie.
import type { Rng } from '@owrl/core';
import { shuffled } from '../shuffle.js';

export type WikiKind = 'city' | 'river' | 'person' | 'invention';
export const WIKI_KINDS: readonly WikiKind[] = ['city', 'river', 'person', 'invention'];

export const ARTICLES_PER_KIND = 15;

export const PROVINCES = ['Northmark', 'Vellaria', 'Ostmark', 'Caldera'] as const;
const SEAS = ['Amber Sea', 'Gulf of Tessary', 'Northern Ocean', 'Lake Veld'] as const;

const OCCUPATIONS = ['Inventor', 'Engineer', 'Explorer', 'Cartographer', 'Architect', 'Composer'] as const;

const CITY_HEADS = ['Arven', 'Kessi', 'Dun', 'Bryn', 'Morla', 'Tal', 'Osk', 'Hal', 'Elda', 'Cor', 'Wyn', 'Seren', 'Lann', 'Thal', 'Gald', 'Ferro', 'Ashby', 'Quen'];
const CITY_TAILS = ['holm', 'mar', 'mere', 'ford', 'wick', 'stad', 'burg', 'haven', 'dale', 'port', 'gard', 'bridge'];
const RIVERS = ['Velm', 'Oda', 'Tessa', 'Marn', 'Ilse', 'Karra', 'Suvel', 'Dree', 'Aska', 'Lorn', 'Voss', 'Ebra', 'Nith', 'Quell', 'Rhenna', 'Olva', 'Caddon', 'Yselle', 'Brisk', 'Tamra'];
const FIRST_NAMES = ['Oskar', 'Mira', 'Teodor', 'Ilsa', 'Anselm', 'Brigida', 'Cassian', 'Dagny', 'Emeric', 'Fenna', 'Gideon', 'Halla', 'Ivo', 'Jorun', 'Kasimir', 'Liesel', 'Marek', 'Nell'];
const SURNAMES = ['Vantrell', 'Holmqvist', 'Dreyfold', 'Castellan', 'Morrow', 'Ashgrove', 'Kettering', 'Lindqvist', 'Varga', 'Pellham', 'Quist', 'Renwick', 'Sorensby', 'Thale', 'Ulverston', 'Wexley', 'Brandt'];
const INVENTION_HEADS = ['Vello', 'Orri', 'Quino', 'Zeph', 'Lumo', 'Kesto', 'Brava', 'Tenni', 'Ostra', 'Mirel', 'Cado', 'Fenno', 'Harro', 'Ilvo', 'Savo', 'Dorra', 'Pelli', 'Auro'];
const INVENTION_TAILS = ['graph', 'scope', 'meter', 'phone', 'loom', 'stat', 'wheel', 'lamp', 'press', 'drive'];

/** A sea or lake as it reads in a sentence: `the Amber Sea`, but `Lake Veld`. */
export function placeName(sea: string): string {
  return sea.startsWith('Lake ') ? sea : `the ${sea}`;
}

function int(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

/** Log-uniform integer in [lo, hi], so sizes spread over orders of magnitude. */
function logInt(rng: Rng, lo: number, hi: number): number {
  return Math.round(Math.exp(Math.log(lo) + rng() * (Math.log(hi) - Math.log(lo))));
}

export function pick<T>(rng: Rng, xs: readonly T[]): T {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from an empty list');
  return x;
}

/** `n` distinct values drawn with `draw` (redrawn on a repeat). */
function distinct(n: number, draw: () => number): number[] {
  const seen = new Set<number>();
  const out: number[] = [];
  while (out.length < n) {
    const v = draw();
    if (seen.has(v)) continue;
    seen.add(v);
    out.push(v);
  }
  return out;
}

/** Raw entities before prose is written: the facts and the relations between them. */
export interface CityRec { title: string; province: string; population: number; area: number; elevation: number; founded: number; river: string }
export interface RiverRec { title: string; length: number; discharge: number; basin: number; sourceElevation: number; mouth: string; firstCharted: number; chartedBy: string; cities: string[]; province: string }
export interface PersonRec { title: string; born: number; died: number; birthplace: string; occupation: string; patents: number }
export interface InventionRec { title: string; introduced: number; inventor: string; weight: number; units: number; patentNo: string; madeIn: string }

export interface WikiWorld {
  cities: CityRec[];
  rivers: RiverRec[];
  people: PersonRec[];
  inventions: InventionRec[];
}

export function buildWorld(rng: Rng): WikiWorld {
  const n = ARTICLES_PER_KIND;
  const heads = shuffled(rng, CITY_HEADS).slice(0, n);
  const cityNames = heads.map((h) => h + pick(rng, CITY_TAILS));
  const riverNames = shuffled(rng, RIVERS).slice(0, n);
  const firsts = shuffled(rng, FIRST_NAMES).slice(0, n);
  const lasts = shuffled(rng, SURNAMES).slice(0, n);
  const personNames = firsts.map((f, i) => `${f} ${lasts[i] ?? ''}`);
  const invHeads = shuffled(rng, INVENTION_HEADS).slice(0, n);
  const inventionNames = invHeads.map((h) => h + pick(rng, INVENTION_TAILS));

  // People first: inventions and river surveys happen within their lives.
  const occupations = shuffled(rng, [...OCCUPATIONS, ...OCCUPATIONS, 'Inventor', 'Engineer', 'Explorer']).slice(0, n);
  const births = distinct(n, () => int(rng, 1590, 1870));
  // Makers hold many patents, everyone else a few; all counts differ.
  const patentsSeen = new Set<number>();
  const deaths = new Set<number>();
  const people: PersonRec[] = personNames.map((title, i) => {
    const born = births[i] ?? 1700;
    const occupation = occupations[i] ?? 'Inventor';
    const maker = occupation === 'Inventor' || occupation === 'Engineer';
    let patents: number;
    do patents = maker ? int(rng, 12, 95) : int(rng, 0, 11);
    while (patentsSeen.has(patents));
    patentsSeen.add(patents);
    let died: number;
    do died = born + int(rng, 44, 92);
    while (deaths.has(died));
    deaths.add(died);
    return { title, born, died, birthplace: '', occupation, patents };
  });
  const makers = people.filter((p) => p.occupation === 'Inventor' || p.occupation === 'Engineer');
  const surveyors = people.filter((p) => p.occupation === 'Explorer' || p.occupation === 'Cartographer');

  const populations = distinct(n, () => logInt(rng, 8_000, 2_400_000));
  const areas = distinct(n, () => logInt(rng, 12, 1_450));
  const elevations = distinct(n, () => int(rng, 2, 2_150));
  const founded = distinct(n, () => int(rng, 780, 1860));
  const cities: CityRec[] = cityNames.map((title, i) => ({
    title,
    province: pick(rng, PROVINCES),
    population: populations[i] ?? 0,
    area: areas[i] ?? 0,
    elevation: elevations[i] ?? 0,
    founded: founded[i] ?? 0,
    river: pick(rng, riverNames),
  }));

  const lengths = distinct(n, () => logInt(rng, 85, 3_400));
  // Longer rivers drain larger basins, and larger basins carry more water.
  const basins: number[] = new Array<number>(n).fill(0);
  const discharges = basins.slice();
  const seenBasin = new Set<number>();
  const seenDischarge = new Set<number>();
  lengths.forEach((len, i) => {
    let b: number;
    do b = Math.round(len * len * (0.12 + rng() * 0.5));
    while (seenBasin.has(b));
    seenBasin.add(b);
    let q: number;
    do q = Math.max(3, Math.round(b * (0.004 + rng() * 0.012)));
    while (seenDischarge.has(q));
    seenDischarge.add(q);
    basins[i] = b;
    discharges[i] = q;
  });
  const sources = distinct(n, () => int(rng, 240, 4_700));
  const charted = new Set<number>();
  const rivers: RiverRec[] = riverNames.map((title, i) => {
    const by = pick(rng, surveyors.length > 0 ? surveyors : people);
    let year: number;
    do year = int(rng, by.born + 20, by.died - 1);
    while (charted.has(year));
    charted.add(year);
    return {
      title,
      length: lengths[i] ?? 0,
      discharge: discharges[i] ?? 0,
      basin: basins[i] ?? 0,
      sourceElevation: sources[i] ?? 0,
      mouth: pick(rng, SEAS),
      firstCharted: year,
      chartedBy: by.title,
      cities: cities.filter((c) => c.river === title).map((c) => c.title),
      province: pick(rng, PROVINCES),
    };
  });
  for (const p of people) p.birthplace = pick(rng, cityNames);

  const introducedSeen = new Set<number>();
  const weights = distinct(n, () => logInt(rng, 3, 34_000) / 10);
  const units = distinct(n, () => logInt(rng, 1_200, 4_800_000));
  const patentNos = distinct(n, () => int(rng, 10_000, 99_999));
  const inventions: InventionRec[] = inventionNames.map((title, i) => {
    const by = pick(rng, makers.length > 0 ? makers : people);
    let year: number;
    do year = int(rng, by.born + 22, by.died - 1);
    while (introducedSeen.has(year));
    introducedSeen.add(year);
    return {
      title,
      introduced: year,
      inventor: by.title,
      weight: weights[i] ?? 1,
      units: units[i] ?? 0,
      patentNo: `LP-${patentNos[i] ?? 0}`,
      madeIn: pick(rng, cityNames),
    };
  });
  return { cities, rivers, people, inventions };
}

