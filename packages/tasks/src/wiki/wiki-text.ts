// Prose of the wiki's articles: lead, long sections, a timeline of dated events, see-also links and
// references, written from sentence templates with the article's facts and links filled in. Pure
// and seeded: the same rng state writes the same text.
import type { Rng } from '@owrl/core';
import { shuffled } from '../shuffle.js';
import { placeName, type CityRec, type InventionRec, type PersonRec, type RiverRec, type WikiKind, type WikiWorld } from './wiki-world.js';

/** A piece of a paragraph: plain text, or a link to an article (its text is the article's title). */
export type Segment = string | { slug: string; text: string };

export interface WikiSection {
  /** Fragment id, e.g. `history` (`#history`). */
  id: string;
  heading: string;
  paragraphs: readonly Segment[][];
  /** The article's timeline table closes this section. */
  withTimeline: boolean;
}

export interface WikiEvent {
  year: number;
  /** Row text of the timeline table, e.g. `The first tramway line opens`. */
  text: string;
  /** The same event as a past-tense clause for questions, e.g. `the first tramway line opened`. */
  ask: string;
}

export interface ArticleText {
  summary: string;
  lead: Segment[][];
  sections: WikiSection[];
  timeline: WikiEvent[];
  /** Titles of related articles. */
  seeAlso: string[];
  references: string[];
}

type Vars = Readonly<Record<string, string | { slug: string; text: string }>>;

function link(title: string): { slug: string; text: string } {
  return { slug: title.replace(/ /g, '_'), text: title };
}

/** Fills `{name}` placeholders; link values become link segments. */
function fill(template: string, vars: Vars): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  for (const m of template.matchAll(/\{(\w+)\}/g)) {
    const v = vars[m[1] ?? ''];
    if (v === undefined) throw new Error(`template variable {${m[1] ?? ''}} is not set in "${template}"`);
    const before = template.slice(last, m.index);
    if (typeof v === 'string') out.push(before + v);
    else out.push(before, v);
    last = (m.index ?? 0) + m[0].length;
  }
  out.push(template.slice(last));
  // Merge neighbouring strings so paragraphs render compactly.
  const merged: Segment[] = [];
  for (const s of out) {
    const prev = merged[merged.length - 1];
    if (typeof s === 'string' && typeof prev === 'string') merged[merged.length - 1] = prev + s;
    else if (s !== '') merged.push(s);
  }
  return merged;
}

function pick<T>(rng: Rng, xs: readonly T[]): T {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from an empty list');
  return x;
}

/** Paragraphs of `perParagraph` sentences drawn from `bank` without repeats. */
function paragraphs(rng: Rng, bank: readonly string[], count: number, perParagraph: number, vars: Vars): Segment[][] {
  const order = shuffled(rng, bank);
  const out: Segment[][] = [];
  for (let p = 0; p < count; p++) {
    const sentences = order.slice(p * perParagraph, (p + 1) * perParagraph);
    out.push(fill(sentences.join(' '), vars));
  }
  return out;
}

const CITY_SECTIONS: Readonly<Record<string, readonly string[]>> = {
  Geography: [
    '{name} lies at an elevation of {elevation} metres, where the valley of the {river} opens towards the plains of {province}.',
    'The old town occupies a low terrace above the floodplain, while the newer districts climb the slopes to the north and west.',
    'The climate is temperate, with cool, damp winters and long summers that are tempered by the winds coming up the valley.',
    'Several small streams join the {river} within the city limits; most of them were covered over during the nineteenth century.',
    'The municipality covers {area} square kilometres, including farmland, two forested hills and a string of villages along the river.',
    'Flooding has shaped the layout of the city: the lowest quarters were rebuilt on raised ground after every great flood.',
  ],
  Economy: [
    'For centuries the economy of {name} rested on river trade, with grain, timber and salt shipped down the {river} in flat-bottomed barges.',
    'Workshops along the waterfront turned to weaving and metalwork in the early industrial period and employed most of the town.',
    'Today the largest employers are the regional hospital, the provincial administration of {province} and a number of engineering firms.',
    'A weekly market has been held on the cathedral square since the Middle Ages and still draws traders from the surrounding villages.',
    'Tourism has grown steadily since the restoration of the old town, which is visited mostly in the summer months.',
    'The city hosts a small stock exchange and the headquarters of a cooperative bank that finances farms across {province}.',
  ],
  Culture: [
    'The city theatre, built in the neoclassical style, stages opera and drama from autumn to spring and is the pride of its residents.',
    '{name} is known for its lantern festival, when boats decorated with paper lights drift down the {river} on the longest night of the year.',
    'The municipal museum holds a collection of maps, scientific instruments and paintings donated by the merchant families of the town.',
    'Local cooking favours river fish, smoked sausages and dark rye bread, served with a sour cream sauce flavoured with dill.',
    'The cathedral choir has a long tradition, and several composers of the region wrote their first works for its services.',
    'A network of reading rooms founded by the weavers guild became the first public libraries in the province of {province}.',
  ],
  Transport: [
    '{name} is a junction of the main railway line across {province} and a branch line that follows the valley of the {river}.',
    'A tramway network of four lines serves the old town and the eastern districts, complemented by buses on the outer routes.',
    'River boats still carry freight on the {river}, although the passenger service was discontinued after the railway arrived.',
    'Two road bridges and a footbridge cross the river inside the city; the oldest stone bridge is closed to motor traffic.',
    'The regional airfield lies a short drive to the south of the city and is used by light aircraft and seasonal charter flights.',
    'Cycling is popular, and a riverside path links the city centre with the villages upstream and downstream.',
  ],
};

const RIVER_SECTIONS: Readonly<Record<string, readonly string[]>> = {
  Course: [
    'The {name} rises at an elevation of {sourceElevation} metres in the uplands of {province} and first flows through narrow wooded gorges.',
    'Below the gorges the valley widens and the river meanders across meadows, where oxbow lakes mark its former channels.',
    'In its lower course the {name} is joined by several tributaries before it reaches {mouth} through a broad delta of sandbanks.',
    'Its total length of {length} kilometres makes it one of the notable waterways of the Far Reaches.',
    'Along its course the river passes {cities}, which grew up at fords and river crossings.',
    'Stretches of the upper course were straightened in the nineteenth century to speed up the floating of timber.',
  ],
  Hydrology: [
    'The mean discharge at the mouth is about {discharge} cubic metres per second, with the highest flows after the spring snowmelt.',
    'The drainage basin covers {basin} square kilometres of forest, farmland and upland moor.',
    'Late summer droughts can lower the water level so far that sandbanks appear in the middle of the channel.',
    'Gauging stations have recorded the water level of the {name} daily for more than a century.',
    'Ice forms on the slower reaches in most winters, and ice jams occasionally cause floods in the lower valley.',
    'The water is soft and slightly acidic in the upper course and becomes harder as the river crosses limestone country.',
  ],
  Ecology: [
    'The floodplain forests along the {name} are home to beavers, otters and more than a hundred species of breeding birds.',
    'Salmon and sea trout migrate upstream to spawn, helped by fish passes that were built beside the old weirs.',
    'Reed beds in the delta shelter herons, bitterns and the rare marsh harrier, and are protected as a nature reserve.',
    'Runoff from farmland once caused blooms of algae in summer, but the water quality has improved since new treatment plants opened.',
    'Botanists have described several rare orchids from the damp meadows of the middle course.',
    'Volunteers count the wintering waterfowl on the lower river every January, a tradition that began more than fifty years ago.',
  ],
  Navigation: [
    'The lower course of the {name} is navigable for barges, and locks bypass the rapids that once stopped river traffic.',
    'Timber was floated down the river in great rafts until the railway took over the trade at the end of the nineteenth century.',
    'Ferries still cross the river at several places where no bridge has been built, carrying cars as well as passengers.',
    'Pleasure boats operate on the calmer stretches in summer, and a long-distance canoe route follows the river to {mouth}.',
    'Dredging keeps a channel open through the delta for the coastal ships that call at the river ports.',
    'Old towpaths along the banks, once used by horses hauling barges upstream, now serve walkers and cyclists.',
  ],
};

const PERSON_SECTIONS: Readonly<Record<string, readonly string[]>> = {
  'Early years': [
    '{name} was born in {birthplace} in {born}, the second child of a family of craftsmen who kept a workshop near the river.',
    'As a child {name} was fascinated by maps and machines and spent long hours in the workshop watching the tools being made.',
    'A local teacher noticed the talent of the young pupil and arranged for lessons in mathematics and drawing.',
    'At the age of sixteen {name} left {birthplace} to continue studying at the academy in the provincial capital.',
    'Letters from these years, kept in the family archive, describe a curious, restless student who rarely slept before midnight.',
    'The early death of a parent left the family in debt, and the young student had to work as a copyist to pay for lessons.',
  ],
  Work: [
    'As {occupation} {name} worked on projects across the Far Reaches and became known for careful measurements and clear reports.',
    'Colleagues described a demanding but generous collaborator who shared notes freely and answered every letter.',
    'The records of the patent office list {patents} patents in the name of {name}, most of them for practical improvements to tools and instruments.',
    'Many of the notebooks survive and show sketches, calculations and lists of materials side by side on the same page.',
    'Commissions from the provincial government provided a steady income and took {name} to remote parts of the country.',
    'Several assistants trained by {name} later became well known in their own right.',
  ],
  Legacy: [
    'Streets in several cities carry the name of {name}, and a bronze statue stands in front of the town hall of {birthplace}.',
    'Historians have praised the precision of the work of {name}, although some of its conclusions were later revised.',
    'A foundation established after the death of {name} awards an annual prize to young engineers and scientists.',
    'The correspondence of {name} was published in twelve volumes and remains an important source on the period.',
    'A crater on the moon was named after {name} by the astronomical society of the Far Reaches.',
    'Exhibitions about the life and work of {name} have been shown in the museums of several cities.',
  ],
};

const INVENTION_SECTIONS: Readonly<Record<string, readonly string[]>> = {
  Background: [
    'Before the {name} was introduced, the work it performs was done by hand, slowly and with a great deal of waste.',
    'Several earlier designs had been tried in the workshops of the Far Reaches, but none of them proved reliable in daily use.',
    '{inventor} began working on the problem after visiting the workshops of {madeIn} and seeing the limits of the tools in use there.',
    'The first sketches of the device appear in notebooks kept by {inventor} some years before the first working model was built.',
    'Patrons in the city council of {madeIn} provided money for materials and a room in which to build the prototypes.',
    'Rival inventors claimed to have had the same idea first, which led to a long dispute before the patent office.',
  ],
  Design: [
    'The {name} consists of a cast-iron frame, a system of gears and levers, and a set of interchangeable brass parts.',
    'A complete production model weighs about {weight} kilograms, which made it possible to move it between workshops on a cart.',
    'The central mechanism converts a steady turning motion into a series of precisely timed strokes.',
    'Later models replaced wooden components with steel and added a guard to protect the hands of the operator.',
    'The design was protected by patent {patentNo}, whose drawings show the mechanism in great detail.',
    'Maintenance was simple: most parts could be replaced with hand tools by the operator without a specialist.',
  ],
  Adoption: [
    'Production began in {madeIn}, where the first workshop turned out a few machines a month for local customers.',
    'In total about {units} units were produced, most of them in factories that built the design under licence.',
    'Farms, mills and small workshops across the Far Reaches bought the {name} in large numbers within a few decades.',
    'Exports began to the neighbouring countries, where the machine was sold under several different names.',
    'Trade journals of the period praised the device for saving labour and reducing the number of accidents.',
    'Some guilds opposed the new machine, fearing for the jobs of their members, and a few workshops were damaged in protests.',
  ],
};

/** Sentences of the long last section (history, or life and career): year-stamped, combinatorial. */
const HISTORY_ACTORS: Readonly<Record<WikiKind, readonly string[]>> = {
  city: ['the town council', 'a guild of merchants', 'the provincial governor', 'the bishop of the diocese', 'settlers from the coast', 'a company of engineers', 'the citizens assembly', 'a wealthy banking family'],
  river: ['the river authority', 'a company of surveyors', 'the provincial government', 'timber merchants', 'the fishing cooperatives', 'a team of hydrologists', 'the navigation board', 'farmers of the valley'],
  person: ['the young student', 'the academy', 'a circle of friends', 'the provincial government', 'a publisher in the capital', 'a rival', 'the royal society', 'former students'],
  invention: ['the first licensees', 'the patent office', 'a group of investors', 'the workshop foremen', 'rival manufacturers', 'a trade journal', 'the postal service', 'collectors of machines'],
};

const HISTORY_ACTIONS: Readonly<Record<WikiKind, readonly string[]>> = {
  city: [
    'built a new ring of walls around the growing town',
    'granted a market charter to the settlement',
    'rebuilt the quarter around the cathedral after a fire',
    'laid out the wide avenues of the new town',
    'founded a hospital and an almshouse near the river gate',
    'drained the marshes to the east of the old town',
    'opened a grammar school in the former monastery',
    'paved the main streets and installed gas lighting',
    'commissioned a new town hall on the market square',
    'built warehouses and a customs house by the quay',
  ],
  river: [
    'built the first weir across the upper course',
    'cleared the rapids that had blocked river traffic',
    'raised dykes along the lower valley after a flood',
    'opened a series of locks on the middle course',
    'surveyed the delta and marked a shipping channel',
    'planted willows to hold the eroding banks',
    'built mills at the falls below the gorges',
    'dredged the harbour basins at the mouth',
    'restored the floodplain meadows for wildlife',
    'set up the first gauging station on the river',
  ],
  person: [
    'published a first treatise on measurement',
    'organised an expedition to the northern uplands',
    'opened a workshop with two assistants',
    'presented a new method to a sceptical audience',
    'travelled to the coast to study harbour works',
    'accepted a teaching post at the academy',
    'completed a survey of the provincial roads',
    'quarrelled publicly over the credit for a discovery',
    'received a gold medal for services to science',
    'retired to a house outside the city',
  ],
  invention: [
    'signed the first contract to build the machine under licence',
    'challenged the original patent in the courts',
    'paid for a larger factory near the railway',
    'suggested a simpler gear train that halved the cost',
    'launched a cheaper model for small workshops',
    'reviewed the machine in a long and enthusiastic article',
    'ordered several hundred units for its sorting offices',
    'founded a museum devoted to the early models',
    'improved the frame after a series of breakdowns',
    'introduced the machine in the neighbouring countries',
  ],
};

const HISTORY_OUTCOMES: readonly string[] = [
  'a decision that shaped the following decades',
  'although the project took many years to complete',
  'which was celebrated with a public holiday',
  'despite fierce opposition at the time',
  'an event still remembered in local songs',
  'at a cost that emptied the treasury for a generation',
  'which attracted visitors from across the Far Reaches',
  'as contemporary chronicles proudly record',
  'a step that later historians regarded as a turning point',
  'with the help of loans from the provincial bank',
];

interface EventTemplate {
  text: string;
  ask: string;
}

const EVENTS: Readonly<Record<WikiKind, readonly EventTemplate[]>> = {
  city: [
    { text: 'The North Bridge opens', ask: 'the North Bridge opened' },
    { text: 'The first tramway line opens', ask: 'the first tramway line opened' },
    { text: 'A great fire destroys the old market', ask: 'a great fire destroyed the old market' },
    { text: 'The city university is established', ask: 'the city university was established' },
    { text: 'The river harbour is enlarged', ask: 'the river harbour was enlarged' },
    { text: 'The new city hall is completed', ask: 'the new city hall was completed' },
    { text: 'The railway reaches the city', ask: 'the railway reached the city' },
    { text: 'The public library opens', ask: 'the public library opened' },
    { text: 'The cathedral is consecrated', ask: 'the cathedral was consecrated' },
    { text: 'The botanical garden is laid out', ask: 'the botanical garden was laid out' },
  ],
  river: [
    { text: 'The first steamboat sails up the river', ask: 'the first steamboat sailed up the river' },
    { text: 'A great flood breaks the dykes', ask: 'a great flood broke the dykes' },
    { text: 'The Lower Canal is completed', ask: 'the Lower Canal was completed' },
    { text: 'A dam is built at the upper gorge', ask: 'a dam was built at the upper gorge' },
    { text: 'The delta becomes a nature reserve', ask: 'the delta became a nature reserve' },
    { text: 'The first fixed bridge spans the river', ask: 'the first fixed bridge spanned the river' },
    { text: 'The river freezes over for forty days', ask: 'the river froze over for forty days' },
    { text: 'Commercial salmon fishing ends', ask: 'commercial salmon fishing ended' },
    { text: 'The last timber raft is floated downstream', ask: 'the last timber raft was floated downstream' },
    { text: 'The towpath becomes a cycle route', ask: 'the towpath became a cycle route' },
  ],
  person: [
    { text: 'Enters the academy', ask: '{name} entered the academy' },
    { text: 'Publishes a first book', ask: '{name} published a first book' },
    { text: 'Is elected to the Royal Society of the Reaches', ask: '{name} was elected to the Royal Society of the Reaches' },
    { text: 'Marries', ask: '{name} married' },
    { text: 'Receives the Silver Compass award', ask: '{name} received the Silver Compass award' },
    { text: 'Opens a workshop in the capital', ask: '{name} opened a workshop in the capital' },
    { text: 'Travels to the Amber Sea coast', ask: '{name} travelled to the Amber Sea coast' },
    { text: 'Becomes director of the academy', ask: '{name} became director of the academy' },
    { text: 'Retires from public life', ask: '{name} retired from public life' },
  ],
  invention: [
    { text: 'Mass production begins', ask: 'mass production of the {name} began' },
    { text: 'Shown at the Great Exhibition', ask: 'the {name} was shown at the Great Exhibition' },
    { text: 'Adopted by the postal service', ask: 'the postal service adopted the {name}' },
    { text: 'An improved model is introduced', ask: 'an improved model of the {name} was introduced' },
    { text: 'Exports to the south begin', ask: 'exports of the {name} to the south began' },
    { text: 'A steam-driven version appears', ask: 'a steam-driven version of the {name} appeared' },
    { text: 'The patent expires', ask: 'the patent of the {name} expired' },
    { text: 'Production ends', ask: 'production of the {name} ended' },
  ],
};

/** Rows of the timeline table. */
export const TIMELINE_ROWS = 7;
/** Paragraphs of the long last section, before its timeline. */
export const HISTORY_PARAGRAPHS = 7;

/** Heading of the last section, which ends with the timeline. */
export function timelineSectionHeading(kind: WikiKind): string {
  return kind === 'person' ? 'Life and career' : 'History';
}

function sectionId(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function historyParagraphs(rng: Rng, kind: WikiKind, from: number, to: number, vars: Vars): Segment[][] {
  const n = HISTORY_PARAGRAPHS * 3;
  const actions = shuffled(rng, HISTORY_ACTIONS[kind]);
  const years: number[] = [];
  for (let i = 0; i < n; i++) years.push(from + Math.floor(((to - from) * (i + rng())) / n));
  const sentences = years.map((y, i) => {
    const actor = pick(rng, HISTORY_ACTORS[kind]);
    const action = actions[i % actions.length] ?? '';
    const outcome = pick(rng, HISTORY_OUTCOMES);
    return i < actions.length ? `In ${y}, ${actor} ${action}, ${outcome}.` : `Around ${y} ${actor} was again active in the same cause, ${outcome}.`;
  });
  const out: Segment[][] = [];
  for (let p = 0; p < HISTORY_PARAGRAPHS; p++) {
    const opener = p !== 0 ? '' : kind === 'person' ? `{name} was born in ${from}, and the records of the following decades are unusually complete. ` : `The recorded history of ${kind === 'city' ? '' : 'the '}{name} goes back to ${from}. `;
    out.push(fill(opener + sentences.slice(p * 3, p * 3 + 3).join(' '), vars));
  }
  return out;
}

function timeline(rng: Rng, kind: WikiKind, from: number, to: number, name: string): WikiEvent[] {
  const templates = shuffled(rng, EVENTS[kind]).slice(0, TIMELINE_ROWS);
  const years = new Set<number>();
  while (years.size < templates.length) years.add(from + Math.floor(rng() * (to - from + 1)));
  const sorted = [...years].sort((a, b) => a - b);
  return templates.map((t, i) => ({
    year: sorted[i] ?? from,
    text: t.text.replace(/\{name\}/g, name),
    ask: t.ask.replace(/\{name\}/g, name),
  }));
}

const AUTHORS = ['Holmqvist, M.', 'Dreyfold, A.', 'Castellan, R.', 'Okafor, T.', 'Lindgren, E.', 'Marsh, J.', 'Ferrant, L.', 'Vidal, P.', 'Strand, K.'];
const PUBLISHERS = ['Lorewell Press', 'Academy of the Reaches', 'Northmark University Press', 'Tessary Historical Society', 'Caldera Books'];
const REF_TITLES = ['A history of {name}', '{name}: a survey', 'Notes on {name}', 'Collected records concerning {name}', '{name} in the nineteenth century', 'The Far Reaches and {name}'];

function references(rng: Rng, name: string): string[] {
  const titles = shuffled(rng, REF_TITLES).slice(0, 4);
  return titles.map((t) => `${pick(rng, AUTHORS)} (${1880 + Math.floor(rng() * 120)}). ${t.replace('{name}', name)}. ${pick(rng, PUBLISHERS)}.`);
}

/** `A`, `A and B`, `A, B and C` with each title linked. */
function linkList(titles: readonly string[]): Segment[] {
  const out: Segment[] = [];
  titles.forEach((t, i) => {
    if (i > 0) out.push(i === titles.length - 1 ? ' and ' : ', ');
    out.push(link(t));
  });
  return out;
}

/** `inventor` → `an inventor`. */
function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

function listTitles(titles: readonly string[]): string {
  if (titles.length <= 1) return titles[0] ?? '';
  return `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1] ?? ''}`;
}

function others<T extends { title: string }>(rng: Rng, xs: readonly T[], self: string, n: number): string[] {
  return shuffled(rng, xs.filter((x) => x.title !== self)).slice(0, n).map((x) => x.title);
}

function find<T extends { title: string }>(xs: readonly T[], title: string): T {
  const x = xs.find((e) => e.title === title);
  if (x === undefined) throw new Error(`no record ${title}`);
  return x;
}

function sectionsFrom(rng: Rng, bank: Readonly<Record<string, readonly string[]>>, vars: Vars): WikiSection[] {
  return Object.entries(bank).map(([heading, sentences]) => ({
    id: sectionId(heading),
    heading,
    paragraphs: paragraphs(rng, sentences, 2, 3, vars),
    withTimeline: false,
  }));
}

function withHistory(rng: Rng, kind: WikiKind, sections: WikiSection[], from: number, to: number, vars: Vars): WikiSection[] {
  const heading = timelineSectionHeading(kind);
  return [...sections, { id: sectionId(heading), heading, paragraphs: historyParagraphs(rng, kind, from, to, vars), withTimeline: true }];
}

function cityText(rng: Rng, w: WikiWorld, c: CityRec): ArticleText {
  const vars: Vars = {
    name: c.title,
    river: link(c.river),
    province: c.province,
    elevation: c.elevation.toLocaleString('en-US'),
    area: c.area.toLocaleString('en-US'),
  };
  const natives = w.people.filter((p) => p.birthplace === c.title).map((p) => p.title);
  const lead: Segment[][] = [
    fill('{name} is a city in the province of {province}, on the banks of the {river}. It was founded in ' +
      `${c.founded} and is today home to ${c.population.toLocaleString('en-US')} people, who know it for its old bridges and its lantern festival.`, vars),
    natives.length > 0
      ? [`Among the notable people born in ${c.title} ${natives.length === 1 ? 'is' : 'are'} `, ...linkList(natives),
        '. The city is a centre of trade, learning and crafts for the surrounding countryside, and its old town is protected as a historic monument.']
      : fill('The city is a centre of trade, learning and crafts for the surrounding countryside of {province}, and its old town is protected as a historic monument.', vars),
  ];
  return {
    summary: `City in ${c.province} on the ${c.river}`,
    lead,
    sections: withHistory(rng, 'city', sectionsFrom(rng, CITY_SECTIONS, vars), c.founded, 1990, vars),
    timeline: timeline(rng, 'city', c.founded + 10, 1990, c.title),
    seeAlso: [c.river, ...others(rng, w.cities, c.title, 2)],
    references: references(rng, c.title),
  };
}

function riverText(rng: Rng, w: WikiWorld, r: RiverRec): ArticleText {
  const vars: Vars = {
    name: r.title,
    province: r.province,
    mouth: placeName(r.mouth),
    length: r.length.toLocaleString('en-US'),
    discharge: r.discharge.toLocaleString('en-US'),
    basin: r.basin.toLocaleString('en-US'),
    sourceElevation: r.sourceElevation.toLocaleString('en-US'),
    cities: r.cities.length > 0 ? listTitles(r.cities) : 'no towns of any size',
  };
  const cityLinks: Segment[] = r.cities.length > 0
    ? ['It flows past ', ...linkList(r.cities), ' on its way to the sea.']
    : ['No town of any size lies on its banks, and its valley is known for its forests and remote villages.'];
  const lead: Segment[][] = [
    [...fill('The {name} is a river of the Far Reaches that rises in the uplands of {province} and flows into {mouth}. ', vars), ...cityLinks],
    fill(`The river was first charted in ${r.firstCharted} by `, vars).concat([link(r.chartedBy), ', whose maps remained in use for a century. Its valley has been an important route for trade and travel since ancient times.']),
  ];
  return {
    summary: `River flowing into ${placeName(r.mouth)}`,
    lead,
    sections: withHistory(rng, 'river', sectionsFrom(rng, RIVER_SECTIONS, vars), r.firstCharted, 1990, vars),
    timeline: timeline(rng, 'river', r.firstCharted + 5, 1990, r.title),
    seeAlso: [...r.cities.slice(0, 1), ...others(rng, w.rivers, r.title, 2)],
    references: references(rng, r.title),
  };
}

function personText(rng: Rng, w: WikiWorld, p: PersonRec): ArticleText {
  const vars: Vars = {
    name: p.title,
    birthplace: link(p.birthplace),
    born: String(p.born),
    occupation: withArticle(p.occupation.toLowerCase()),
    patents: String(p.patents),
  };
  const works = [...w.inventions.filter((v) => v.inventor === p.title).map((v) => v.title), ...w.rivers.filter((r) => r.chartedBy === p.title).map((r) => r.title)];
  const lead: Segment[][] = [
    fill(`{name} (${p.born}–${p.died}) was {occupation} from {birthplace}, remembered as one of the most inventive minds of the Far Reaches.`, vars),
    works.length > 0
      ? [`The name of ${p.title} is linked above all with `, ...linkList(works), ', which are still studied and admired today.']
      : fill('The work of {name} was admired by contemporaries and influenced a whole generation of students across the Far Reaches.', vars),
  ];
  return {
    summary: `${p.occupation} (${p.born}–${p.died})`,
    lead,
    sections: withHistory(rng, 'person', sectionsFrom(rng, PERSON_SECTIONS, vars), p.born, p.died, vars),
    timeline: timeline(rng, 'person', p.born + 16, p.died, p.title),
    seeAlso: [p.birthplace, ...works.slice(0, 1), ...others(rng, w.people, p.title, 1)],
    references: references(rng, p.title),
  };
}

function inventionText(rng: Rng, w: WikiWorld, v: InventionRec): ArticleText {
  const vars: Vars = {
    name: v.title,
    inventor: link(v.inventor),
    madeIn: link(v.madeIn),
    weight: v.weight.toLocaleString('en-US', { maximumFractionDigits: 1 }),
    units: v.units.toLocaleString('en-US'),
    patentNo: v.patentNo,
  };
  const inventor = find(w.people, v.inventor);
  const lead: Segment[][] = [
    fill(`The {name} is a machine introduced in ${v.introduced} by {inventor} and first made in {madeIn}.`, vars),
    fill('It changed the work of many trades in the Far Reaches, and restored examples are kept in several museums, where they are still demonstrated to visitors.', vars),
  ];
  return {
    summary: `Machine introduced in ${v.introduced} by ${v.inventor}`,
    lead,
    sections: withHistory(rng, 'invention', sectionsFrom(rng, INVENTION_SECTIONS, vars), v.introduced, 1990, vars),
    timeline: timeline(rng, 'invention', v.introduced + 1, Math.max(v.introduced + 40, inventor.died), v.title),
    seeAlso: [v.inventor, v.madeIn, ...others(rng, w.inventions, v.title, 1)],
    references: references(rng, v.title),
  };
}

/** Writes the text of the article `title` of `kind` (its record must be in `world`). */
export function writeArticleText(rng: Rng, world: WikiWorld, kind: WikiKind, title: string): ArticleText {
  switch (kind) {
    case 'city':
      return cityText(rng, world, find(world.cities, title));
    case 'river':
      return riverText(rng, world, find(world.rivers, title));
    case 'person':
      return personText(rng, world, find(world.people, title));
    case 'invention':
      return inventionText(rng, world, find(world.inventions, title));
  }
}
