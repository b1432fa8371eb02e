// Deterministic mailbox of the bundled web mail "Lark Mail": 15 contacts and ~44 messages (inbox,
// archive, sent, trash; threads, attachments, labels, facts such as codes and amounts) built from
// a data seed with mulberry32. The site serves it and the task generator draws targets from it.
import { mulberry32, type Rng } from '@owrl/core';
import { shuffled } from '../shuffle.js';

export type MailFolder = 'inbox' | 'archive' | 'sent' | 'trash';
export const MAIL_FOLDERS: readonly MailFolder[] = ['inbox', 'archive', 'sent', 'trash'];

export const MAIL_LABELS = ['Finance', 'Travel', 'Team', 'Personal'] as const;
export type MailLabel = (typeof MAIL_LABELS)[number];

export interface MailAddress {
  name: string;
  email: string;
}

/** The mailbox owner. */
export const MAIL_ME: MailAddress = { name: 'Sam Rivera', email: 'sam.rivera@brightwater.example' };

export interface MailContact extends MailAddress {
  /** `c01`…`c15`. */
  id: string;
  first: string;
  org: string;
  title: string;
  /** e.g. `+1 555-0142`. */
  phone: string;
}

export interface MailAttachment {
  name: string;
  sizeKb: number;
}

/** A labelled line of a message body (`Booking reference: QX48TK`) that tasks ask about. */
export interface MailFact {
  label: string;
  value: string;
  /** Answers a verifier accepts (the value and its usual spellings). */
  accepted: string[];
}

export type MailKind =
  | 'invoice'
  | 'shipping'
  | 'meeting'
  | 'travel'
  | 'security'
  | 'question'
  | 'agenda'
  | 'intro'
  | 'topic'
  | 'thread'
  | 'personal'
  | 'newsletter'
  | 'receipt'
  | 'ticket'
  | 'policy'
  | 'notice'
  | 'note'
  | 'promo';

export interface MailMessage {
  /** `m01`… for seeded messages (oldest first), `s1`… for messages sent in a session. */
  id: string;
  threadId: string;
  from: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  subject: string;
  /** Body paragraphs, one line each. */
  lines: string[];
  /** Local time `YYYY-MM-DDTHH:MM`. */
  date: string;
  attachments: MailAttachment[];
  /** Initial flags; a session's current flags live in its MailboxState. */
  folder: MailFolder;
  unread: boolean;
  starred: boolean;
  labels: MailLabel[];
  kind: MailKind;
  facts: MailFact[];
  /** Topic phrase the message mentions (topic notes only). */
  topic?: string;
  /** Contact id of the person an introduction introduces. */
  introduces?: string;
  /** Among the newest inbox messages (visible on the first inbox page without scrolling). */
  recent: boolean;
  inReplyTo?: string;
  forwardOf?: string;
}

export interface MailData {
  seed: number;
  contacts: readonly MailContact[];
  /** Seeded messages, newest first. */
  messages: readonly MailMessage[];
  byId: ReadonlyMap<string, MailMessage>;
  /** Topic phrases, each mentioned by exactly two inbox messages. */
  topics: readonly string[];
  /** Contact ids of the senders with exactly three inbox messages. */
  heavySenders: readonly string[];
  /** Contact id of the accountant (the natural recipient of forwarded invoices). */
  accountant: string;
}

/** Messages the first inbox page shows; the `recent` ones are its top rows. */
export const MAIL_PAGE_SIZE = 15;

const FIRST = [
  'Priya', 'Marcus', 'Elena', 'Jonah', 'Aisha', 'Oskar', 'Mei', 'Fatima', 'Diego', 'Hannah', 'Kwame', 'Ingrid',
  'Ravi', 'Lucia', 'Nadia', 'Felix', 'Yuki', 'Amara', 'Owen', 'Sofia', 'Bruno', 'Leila', 'Theo', 'Greta',
];
const LAST = [
  'Natarajan', 'Webb', 'Castillo', 'Lindqvist', 'Okafor', 'Brennan', 'Tanaka', 'Moreau', 'Haddad', 'Romero',
  'Fischer', 'Mensah', 'Kowalski', 'Iyer', 'Barros', 'Sato', 'Duarte', 'Quinn', 'Abara', 'Novak',
];
const COLLEAGUE_TITLES = ['Design lead', 'Producer', 'Engineering manager', 'Office manager', 'Account director'];
const VENDORS = [
  { org: 'Harbor Logistics', domain: 'harborlogistics.example', service: 'freight and storage' },
  { org: 'Pinecrest Printing', domain: 'pinecrest.example', service: 'print production' },
  { org: 'Northwind Catering', domain: 'northwindcatering.example', service: 'event catering' },
  { org: 'Copperline IT', domain: 'copperline.example', service: 'IT support' },
];
const PARTNERS = [
  { org: 'Juniper Foods', domain: 'juniperfoods.example' },
  { org: 'Atlas Museum', domain: 'atlasmuseum.example' },
  { org: 'Kestrel Bikes', domain: 'kestrelbikes.example' },
  { org: 'Marigold Press', domain: 'marigoldpress.example' },
  { org: 'Summit Health', domain: 'summithealth.example' },
];
const PARTNER_TITLES = ['Marketing director', 'Head of partnerships', 'Program manager'];
const TOPICS = [
  'Lisbon offsite', 'Falcon launch', 'Cobalt pilot', 'Orion audit', 'Maple fundraiser', 'Saffron rebrand', 'Tundra migration', 'Willow campaign',
];
const TOPIC_SUBJECTS: readonly ((t: string) => string)[] = [
  (t) => `Notes from the ${t} call`,
  (t) => `${t}: next steps`,
  (t) => `Timeline for the ${t}`,
  (t) => `Budget questions on the ${t}`,
  (t) => `Vendor shortlist for the ${t}`,
  (t) => `Risks we see in the ${t}`,
];
const MEETINGS = ['Design review', 'Sprint planning', 'Client check-in', 'Budget review', 'Studio sync'];
const EVENTS = ['summer party', 'team retreat', 'client dinner', 'volunteer day', 'studio open house'];
const DOCS = ['press release', 'grant proposal', 'brand guide', 'case study'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const CITIES = ['Lisbon', 'Copenhagen', 'Montreal', 'Kyoto', 'Valencia', 'Edinburgh'];
const CARRIERS = ['Parcelway Ground', 'Parcelway Express', 'Parcelway Freight'];
const RESTAURANTS = ['Osteria Blu', 'The Copper Pot', 'Saffron House', 'Lantern Noodle Bar', 'Casa Verde'];
const PLACES = ['Bear Lake', 'Cedar Ridge', 'Mill Creek', 'Eagle Point', 'Fern Hollow'];
const MOCKUPS = ['homepage', 'checkout', 'onboarding', 'dashboard'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTHS_LONG = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const SERVICE = {
  parcel: { name: 'Parcelway', email: 'updates@parcelway.example' },
  air: { name: 'Skyline Air', email: 'bookings@skylineair.example' },
  cloud: { name: 'Cloudbox Security', email: 'no-reply@cloudbox.example' },
  digest: { name: 'The Design Digest', email: 'digest@designdigest.example' },
  deals: { name: 'Brightdeals', email: 'offers@brightdeals.example' },
} as const;

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[Math.floor(rng() * xs.length)] as T;
}

function int(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

/** `$1,240.00` from cents. */
export function formatMailUsd(cents: number): string {
  const d = Math.floor(cents / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `$${d}.${String(cents % 100).padStart(2, '0')}`;
}

function parts(date: string): { y: number; mo: number; d: number; h: number; mi: number; wd: number } {
  const [ymd = '', hm = ''] = date.split('T');
  const [y = 0, mo = 1, d = 1] = ymd.split('-').map(Number);
  const [h = 0, mi = 0] = hm.split(':').map(Number);
  return { y, mo, d, h, mi, wd: new Date(Date.UTC(y, mo - 1, d)).getUTCDay() };
}

/** Date as the inbox shows it: `Mar 14`. */
export function mailShortDate(date: string): string {
  const p = parts(date);
  return `${MONTHS[p.mo - 1] ?? '?'} ${p.d}`;
}

/** Date as a message shows it: `Sat, Mar 14, 2026, 9:41 AM`. */
export function mailLongDate(date: string): string {
  const p = parts(date);
  const h12 = p.h % 12 === 0 ? 12 : p.h % 12;
  return `${DAYS[p.wd] ?? '?'}, ${mailShortDate(date)}, ${p.y}, ${h12}:${String(p.mi).padStart(2, '0')} ${p.h < 12 ? 'AM' : 'PM'}`;
}

/** Spellings of a date an answer may use: `Mar 14`, `March 14`, `14 Mar`, `2026-03-14`... */
export function mailDateAnswers(date: string): string[] {
  const p = parts(date);
  const s = MONTHS[p.mo - 1] ?? '?';
  const l = MONTHS_LONG[p.mo - 1] ?? '?';
  const iso = `${p.y}-${String(p.mo).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
  return [`${s} ${p.d}`, `${l} ${p.d}`, `${p.d} ${s}`, `${p.d} ${l}`, `${s} ${p.d}, ${p.y}`, `${l} ${p.d}, ${p.y}`, iso];
}

/** `YYYY-MM-DDTHH:MM` of minutes since 2026-01-01 00:00. */
export function mailDateAt(minutes: number): string {
  const t = new Date(Date.UTC(2026, 0, 1) + minutes * 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}`;
}

/** Minutes since 2026-01-01 of day `day` (1 = Jan 1) at hh:mm. */
function at(day: number, h: number, mi: number): number {
  return (day - 1) * 1440 + h * 60 + mi;
}

/** The day the mailbox is read (Mar 28, 2026): sent mail of a session is dated then. */
export const MAIL_TODAY_MINUTES = at(87, 16, 0);

function fact(label: string, value: string, extra: string[] = []): MailFact {
  return { label, value, accepted: [value, ...extra] };
}

function timeFact(label: string, h: number, mi: number): MailFact {
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const ap = h < 12 ? 'AM' : 'PM';
  const v = `${h12}:${String(mi).padStart(2, '0')} ${ap}`;
  return fact(label, v, [`${h12}:${String(mi).padStart(2, '0')}${ap}`, `${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}`]);
}

function moneyFact(label: string, cents: number): MailFact {
  return fact(label, formatMailUsd(cents), [formatMailUsd(cents).slice(1)]);
}

interface Draft {
  kind: MailKind;
  from: MailAddress;
  to?: MailAddress[];
  cc?: MailAddress[];
  subject: string;
  lines: string[];
  facts?: MailFact[];
  attachments?: MailAttachment[];
  folder: MailFolder;
  /** Minutes since 2026-01-01. */
  when: number;
  unread?: boolean;
  starred?: boolean;
  labels?: MailLabel[];
  topic?: string;
  introduces?: string;
  thread?: string;
  inReplyTo?: number;
  recent?: boolean;
}

/** Unique codes: the same generator never returns a value twice. */
class Codes {
  private readonly used = new Set<string>();
  constructor(private readonly rng: Rng) {}
  make(f: (rng: Rng) => string): string {
    for (;;) {
      const v = f(this.rng);
      if (!this.used.has(v)) {
        this.used.add(v);
        return v;
      }
    }
  }
}

const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const letter = (rng: Rng): string => LETTERS[Math.floor(rng() * LETTERS.length)] ?? 'A';
const digits = (rng: Rng, n: number): string => Array.from({ length: n }, () => String(Math.floor(rng() * 10))).join('');

function buildContacts(rng: Rng): { contacts: MailContact[]; vendors: typeof VENDORS; partners: typeof PARTNERS } {
  const firsts = shuffled(rng, FIRST);
  const lasts = shuffled(rng, LAST);
  const vendors = shuffled(rng, VENDORS).slice(0, 3);
  const partners = shuffled(rng, PARTNERS).slice(0, 3);
  const titles = shuffled(rng, COLLEAGUE_TITLES);
  const phones = shuffled(rng, Array.from({ length: 90 }, (_, i) => `+1 555-01${String(i + 10)}`));
  const contacts: MailContact[] = [];
  for (let i = 0; i < 15; i++) {
    const first = firsts[i] as string;
    const last = lasts[i] as string;
    let org: string;
    let domain: string;
    let title: string;
    if (i < 5) {
      [org, domain, title] = ['Brightwater Studio', 'brightwater.example', titles[i] as string];
    } else if (i < 8) {
      const v = vendors[i - 5] as (typeof VENDORS)[number];
      [org, domain, title] = [v.org, v.domain, i === 5 ? 'Billing' : 'Account manager'];
    } else if (i === 8) {
      [org, domain, title] = ['Ledgerly Accounting', 'ledgerly.example', 'Accountant'];
    } else if (i < 12) {
      const p = partners[i - 9] as (typeof PARTNERS)[number];
      [org, domain, title] = [p.org, p.domain, PARTNER_TITLES[i - 9] as string];
    } else {
      [org, domain, title] = ['', 'mailbox.example', 'Friend'];
    }
    contacts.push({
      id: `c${String(i + 1).padStart(2, '0')}`,
      first,
      name: `${first} ${last}`,
      email: `${first}.${last}@${domain}`.toLowerCase(),
      org,
      title,
      phone: phones[i] as string,
    });
  }
  return { contacts, vendors, partners };
}

/**
 * Builds the mailbox of data seed `seed`. Same seed → identical mailbox.
 * Structure (fixed, contents seeded): 12 recent inbox messages, 19 older inbox messages, 6
 * archived, 5 sent, 2 in trash; three colleagues send exactly three inbox messages each; three
 * topics are each mentioned by exactly two inbox messages; subjects are unique apart from the
 * `Re:` messages of threads.
 */
export function buildMailData(seed: number): MailData {
  const rng = mulberry32((seed ^ 0x3a11b0c5) >>> 0);
  const codes = new Codes(rng);
  const { contacts, vendors } = buildContacts(rng);
  const c = (i: number): MailContact => contacts[i] as MailContact;
  const me = MAIL_ME;
  const topics = shuffled(rng, TOPICS).slice(0, 3);
  const topicSubjects = shuffled(rng, TOPIC_SUBJECTS);
  const meetings = shuffled(rng, MEETINGS);
  const events = shuffled(rng, EVENTS);
  const docs = shuffled(rng, DOCS);
  const days = shuffled(rng, WEEKDAYS);
  const cities = shuffled(rng, CITIES);
  const places = shuffled(rng, PLACES);
  const restaurants = shuffled(rng, RESTAURANTS);
  const sign = (a: MailAddress): string => (a.name.split(' ')[0] ?? a.name);

  // Times: recent inbox messages on Mar 21–28, older inbox Feb 9 – Mar 20, archive in January.
  const recentTimes = Array.from({ length: 12 }, (_, i) => at(87 - Math.floor(i * 0.62), 17 - ((i * 5) % 9), int(rng, 0, 59)));
  const olderTimes = Array.from({ length: 19 }, (_, i) => at(79 - Math.floor(i * 2.0), 8 + ((i * 7) % 10), int(rng, 0, 59)));
  const [r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11] = shuffled(rng, recentTimes) as [
    number, number, number, number, number, number, number, number, number, number, number, number,
  ];
  const older = shuffled(rng, olderTimes);
  const o = (i: number): number => older[i] as number;

  const invoice = (v: number, when: number, folder: MailFolder, labels: MailLabel[] = []): Draft => {
    const sender = c(v);
    const vendor = vendors[v - 5] as (typeof VENDORS)[number];
    const inv = codes.make((r) => `INV-${digits(r, 4)}`);
    const cents = int(rng, 18, 480) * 1000 + int(rng, 0, 3) * 2500;
    const dueDay = int(rng, 2, 28);
    return {
      kind: 'invoice', from: sender, folder, when, labels,
      subject: `Invoice ${inv} from ${vendor.org}`,
      lines: [
        'Hi Sam,',
        `Please find attached our invoice for ${vendor.service} this month.`,
        `Invoice number: ${inv}`,
        `Amount due: ${formatMailUsd(cents)}`,
        `Due date: Apr ${dueDay}`,
        `Thank you, ${sign(sender)}`,
      ],
      facts: [fact('Invoice number', inv), moneyFact('Amount due', cents), fact('Due date', `Apr ${dueDay}`, [`April ${dueDay}`, `${dueDay} Apr`, `2026-04-${String(dueDay).padStart(2, '0')}`])],
      attachments: [{ name: `${inv}.pdf`, sizeKb: int(rng, 60, 240) }],
    };
  };
  const receipt = (v: number, when: number, folder: MailFolder): Draft => {
    const sender = c(v);
    const vendor = vendors[v - 5] as (typeof VENDORS)[number];
    const no = codes.make((r) => `R-${digits(r, 5)}`);
    const cents = int(rng, 20, 900) * 100 + int(rng, 0, 99);
    return {
      kind: 'receipt', from: sender, folder, when, labels: ['Finance'],
      subject: `Receipt ${no} from ${vendor.org}`,
      lines: ['Hello,', `Thanks for your payment for ${vendor.service}.`, `Receipt number: ${no}`, `Total paid: ${formatMailUsd(cents)}`, `Best, ${sign(sender)}`],
      facts: [fact('Receipt number', no), moneyFact('Total paid', cents)],
      attachments: [{ name: `receipt-${no}.pdf`, sizeKb: int(rng, 20, 90) }],
    };
  };
  const meeting = (s: number, k: number, when: number, folder: MailFolder, to: MailAddress[] = [me], labels: MailLabel[] = []): Draft => {
    const room = codes.make((r) => `${letter(r)}-${int(r, 1, 4)}${digits(r, 2)}`);
    const h = int(rng, 9, 16);
    const mi = pick(rng, [0, 15, 30, 45]);
    const day = days[k % days.length] as string;
    const name = meetings[k] as string;
    const t = timeFact('Time', h, mi);
    return {
      kind: 'meeting', from: c(s), to, folder, when, labels,
      subject: `${name} moved to ${day}`,
      lines: ['Hi all,', `The ${name.toLowerCase()} moves to ${day} this week.`, `Room: ${room}`, `Time: ${t.value}`, `Thanks, ${sign(c(s))}`],
      facts: [fact('Room', room), t],
    };
  };
  const topicNote = (s: number, t: number, k: number, when: number, recent: boolean, to: MailAddress[] = [me]): Draft => {
    const topic = topics[t] as string;
    const subject = (topicSubjects[k] as (x: string) => string)(topic);
    return {
      kind: 'topic', from: c(s), to, folder: 'inbox', when, recent, topic,
      subject,
      lines: ['Hi Sam,', `A short update on the ${topic} before we meet again.`, 'I have put the open points in the shared folder.', `Cheers, ${sign(c(s))}`],
    };
  };

  const drafts: Draft[] = [];
  const push = (d: Draft): number => drafts.push(d) - 1;

  // --- recent inbox (top of the first inbox page) ---
  push({ ...invoice(5, r0, 'inbox'), recent: true, unread: false });
  const track = codes.make((r) => `TRK-${digits(r, 2)}${letter(r)}${digits(r, 1)}${letter(r)}${digits(r, 1)}`);
  const orderNo = codes.make((r) => digits(r, 6));
  const carrier = pick(rng, CARRIERS);
  push({
    kind: 'shipping', from: SERVICE.parcel, folder: 'inbox', when: r1, recent: true,
    subject: `Your order ${orderNo} has shipped`,
    lines: ['Good news: your order is on its way.', `Tracking number: ${track}`, `Carrier: ${carrier}`, 'Estimated delivery: 2–3 business days'],
    facts: [fact('Tracking number', track), fact('Carrier', carrier)],
  });
  push({ ...meeting(0, 0, r2, 'inbox', [me, c(4)]), recent: true });
  const city = cities[0] as string;
  const ref = codes.make((r) => `${letter(r)}${letter(r)}${digits(r, 2)}${letter(r)}${letter(r)}`);
  const seat = `${int(rng, 3, 38)}${pick(rng, ['A', 'C', 'D', 'F'])}`;
  push({
    kind: 'travel', from: SERVICE.air, folder: 'inbox', when: r3, recent: true, unread: false,
    subject: `Your trip to ${city} is confirmed`,
    lines: [`Thank you for booking with Skyline Air. Your trip to ${city} is confirmed.`, `Booking reference: ${ref}`, `Seat: ${seat}`, 'Check-in opens 24 hours before departure.'],
    facts: [fact('Booking reference', ref), fact('Seat', seat)],
    attachments: [{ name: `itinerary-${ref}.pdf`, sizeKb: int(rng, 40, 120) }],
  });
  const code = codes.make((r) => digits(r, 6));
  push({
    kind: 'security', from: SERVICE.cloud, folder: 'inbox', when: r4, recent: true,
    subject: 'Your Cloudbox sign-in code',
    lines: ['Someone is signing in to your Cloudbox account.', `Verification code: ${code}`, 'The code expires in 10 minutes. If this was not you, change your password.'],
    facts: [fact('Verification code', code)],
  });
  const event0 = events[0] as string;
  push({
    kind: 'question', from: c(3), folder: 'inbox', when: r5, recent: true,
    subject: `Headcount for the ${event0}?`,
    lines: ['Hi Sam,', `Could you confirm how many people from your team are coming to the ${event0}?`, 'I need the number by Thursday.', `Thanks, ${sign(c(3))}`],
  });
  const agendaDay = days[1] as string;
  push({
    kind: 'agenda', from: c(1), to: [me, c(3), c(4)], cc: [c(9)], folder: 'inbox', when: r6, recent: true, unread: false,
    subject: `Agenda for ${agendaDay}'s partner meeting`,
    lines: ['Hi everyone,', `Here is the agenda for ${agendaDay}: project status, next quarter, open questions.`, 'Reply with anything you want to add.', `Best, ${sign(c(1))}`],
  });
  push({
    kind: 'intro', from: c(10), folder: 'inbox', when: r7, recent: true, introduces: c(11).id,
    subject: `Introduction: ${c(11).first} from ${c(11).org}`,
    lines: [
      'Hi Sam,',
      `I'd like to introduce ${c(11).name} (${c(11).email}), ${c(11).title.toLowerCase()} at ${c(11).org}.`,
      `${c(11).first} is planning a project that fits your studio well. Could you write to ${c(11).first} directly?`,
      `Best, ${sign(c(10))}`,
    ],
  });
  push(topicNote(12, 0, 0, r8, true, [me, c(3)]));
  // Thread: original (archived), my reply (sent), their answer (recent inbox).
  const event1 = events[1] as string;
  const deposit = int(rng, 3, 12) * 10_000;
  const threadSubject = `Venue options for the ${event1}`;
  const orig = push({
    kind: 'thread', from: c(0), folder: 'archive', when: r9 - 2 * 1440, thread: 'venue',
    subject: threadSubject,
    lines: ['Hi Sam,', `I found three venues for the ${event1}. Which one do you prefer?`, `Thanks, ${sign(c(0))}`],
  });
  const mine = push({
    kind: 'thread', from: me, to: [c(0)], folder: 'sent', when: r9 - 1440, thread: 'venue', inReplyTo: orig, unread: false,
    subject: `Re: ${threadSubject}`,
    lines: [`Hi ${sign(c(0))},`, 'The second one looks best. Can you check the deposit?', 'Sam'],
  });
  push({
    kind: 'thread', from: c(0), folder: 'inbox', when: r9, recent: true, thread: 'venue', inReplyTo: mine,
    subject: `Re: ${threadSubject}`,
    lines: ['Hi Sam,', 'I checked with the venue.', `Deposit: ${formatMailUsd(deposit)}`, `Thanks, ${sign(c(0))}`],
    facts: [moneyFact('Deposit', deposit)],
  });
  const dinnerDay = days[2] as string;
  const restaurant = restaurants[0] as string;
  const dinner = timeFact('Time', int(rng, 18, 20), pick(rng, [0, 30]));
  push({
    kind: 'personal', from: c(13), folder: 'inbox', when: r10, recent: true, unread: false,
    subject: `Dinner on ${dinnerDay}?`,
    lines: [`Hey Sam, are you free for dinner on ${dinnerDay}?`, `Restaurant: ${restaurant}`, `Time: ${dinner.value}`, sign(c(13))],
    facts: [fact('Restaurant', restaurant), dinner],
  });
  const issue = int(rng, 120, 180);
  push({
    kind: 'newsletter', from: SERVICE.digest, folder: 'inbox', when: r11, recent: true,
    subject: `The Design Digest #${issue}`,
    lines: ['This week: type that reads well on small screens, and five tools we liked.', `Issue: #${issue}`, 'You receive this because you subscribed at designdigest.example.'],
  });

  // --- older inbox ---
  push(invoice(6, o(0), 'inbox', ['Finance']));
  push({ ...receipt(7, o(1), 'inbox') });
  const wa = codes.make((r) => `WA-${digits(r, 4)}`);
  const sr = codes.make((r) => `SR-${digits(r, 4)}`);
  push({
    kind: 'ticket', from: c(7), folder: 'inbox', when: o(2),
    subject: `Service request ${sr} updated`,
    lines: ['Hello Sam,', `We looked into service request ${sr}.`, `Workaround code: ${wa}`, 'Enter it in the printer settings to continue.', `Regards, ${sign(c(7))}`],
    facts: [fact('Workaround code', wa)],
  });
  const meal = int(rng, 5, 9) * 1000;
  const hotel = int(rng, 15, 28) * 1000;
  push({
    kind: 'policy', from: c(2), folder: 'inbox', when: o(3), starred: true,
    subject: 'Updated travel expense policy',
    lines: ['Hi team,', 'The expense policy changes next month.', `Meal limit: ${formatMailUsd(meal)} per day`, `Hotel limit: ${formatMailUsd(hotel)} per night`, `Thanks, ${sign(c(2))}`],
    facts: [moneyFact('Meal limit', meal), moneyFact('Hotel limit', hotel)],
  });
  const doc = docs[0] as string;
  push({
    kind: 'question', from: c(9), folder: 'inbox', when: o(4),
    subject: `Can you review the ${doc} draft?`,
    lines: ['Hi Sam,', `Could you review the ${doc} draft before Friday?`, 'Comments in the margin are fine.', `Thank you, ${sign(c(9))}`],
  });
  push(topicNote(4, 0, 1, o(5), false));
  push(topicNote(9, 1, 2, o(6), false));
  push(topicNote(14, 1, 3, o(7), false));
  push(topicNote(5, 2, 4, o(8), false));
  push(topicNote(3, 2, 5, o(9), false));
  push(meeting(2, 1, o(10), 'inbox', [me, c(0), c(3)], ['Team']));
  const place = places[0] as string;
  const trail = int(rng, 6, 19);
  push({
    kind: 'personal', from: c(12), folder: 'inbox', when: o(11),
    subject: `Hiking trip to ${place}`,
    lines: [`Sam! We are going to ${place} on Saturday.`, `Trail length: ${trail} km`, 'Bring water and a jacket.', sign(c(12))],
    facts: [fact('Trail length', `${trail} km`, [`${trail}`, `${trail}km`])],
  });
  push({
    kind: 'newsletter', from: SERVICE.digest, folder: 'inbox', when: o(12),
    subject: `The Design Digest #${issue - 1}`,
    lines: ['This week: a field guide to color contrast.', `Issue: #${issue - 1}`, 'You receive this because you subscribed at designdigest.example.'],
  });
  const used = `${int(rng, 40, 49)}.${int(rng, 1, 9)} GB`;
  push({
    kind: 'notice', from: SERVICE.cloud, folder: 'inbox', when: o(13),
    subject: 'Your Cloudbox storage is almost full',
    lines: ['Your Cloudbox storage is 90% full.', `Storage used: ${used}`, 'Free up space or upgrade your plan.'],
    facts: [fact('Storage used', used, [used.replace(' ', '')])],
  });
  const tsDay = days[3] as string;
  const timesheets = push({
    kind: 'note', from: c(1), folder: 'inbox', when: o(14),
    subject: `Timesheets due ${tsDay}`,
    lines: ['Hi all,', `Please submit your timesheets by ${tsDay}.`, 'Deadline: 5:00 PM', `Thanks, ${sign(c(1))}`],
    facts: [timeFact('Deadline', 17, 0)],
  });
  push({
    kind: 'intro', from: c(4), folder: 'inbox', when: o(15), introduces: c(9).id,
    subject: `Introduction: ${c(9).first} from ${c(9).org}`,
    lines: ['Hi Sam,', `Meet ${c(9).name} (${c(9).email}) from ${c(9).org}.`, `${c(9).first} would like to hear about our services.`, `Best, ${sign(c(4))}`],
  });
  const mock = pick(rng, MOCKUPS);
  push({
    kind: 'note', from: c(0), folder: 'inbox', when: o(16),
    subject: `Feedback on the ${mock} mockups`,
    lines: ['Hi Sam,', `I left comments on the ${mock} mockups.`, 'Overall it is close; the spacing needs another pass.', `Thanks, ${sign(c(0))}`],
  });
  const allHandsRoom = codes.make((r) => `${letter(r)}-${int(r, 1, 4)}${digits(r, 2)}`);
  push({
    kind: 'note', from: c(1), to: [me, c(0), c(2), c(3), c(4)], folder: 'inbox', when: o(17), labels: ['Team'],
    subject: `All-hands on ${days[4] as string}: logistics`,
    lines: ['Hi everyone,', 'Lunch is provided.', `Room: ${allHandsRoom}`, `Best, ${sign(c(1))}`],
    facts: [fact('Room', allHandsRoom)],
  });
  const pickup = codes.make((r) => `LP-${digits(r, 4)}`);
  push({
    kind: 'note', from: c(2), folder: 'inbox', when: o(18),
    subject: 'Laptop refresh schedule',
    lines: ['Hi all,', 'New laptops arrive next week.', `Pickup code: ${pickup}`, 'Bring your old laptop to the office manager.', `Thanks, ${sign(c(2))}`],
    facts: [fact('Pickup code', pickup)],
  });

  // --- archive (January) ---
  const jan = (d: number): number => at(d, 8 + (d % 9), int(rng, 0, 59));
  push(invoice(5, jan(12), 'archive', ['Finance']));
  const city2 = cities[1] as string;
  const ref2 = codes.make((r) => `${letter(r)}${letter(r)}${digits(r, 2)}${letter(r)}${letter(r)}`);
  push({
    kind: 'travel', from: SERVICE.air, folder: 'archive', when: jan(15), labels: ['Travel'],
    subject: `Your trip to ${city2} is confirmed`,
    lines: [`Thank you for booking with Skyline Air. Your trip to ${city2} is confirmed.`, `Booking reference: ${ref2}`, 'Check-in opens 24 hours before departure.'],
    facts: [fact('Booking reference', ref2)],
    attachments: [{ name: `itinerary-${ref2}.pdf`, sizeKb: int(rng, 40, 120) }],
  });
  push(receipt(6, jan(20), 'archive'));
  const sr2 = codes.make((r) => `SR-${digits(r, 4)}`);
  const wa2 = codes.make((r) => `WA-${digits(r, 4)}`);
  push({
    kind: 'ticket', from: c(7), folder: 'archive', when: jan(24),
    subject: `Service request ${sr2} closed`,
    lines: ['Hello Sam,', `Service request ${sr2} is closed.`, `Workaround code: ${wa2}`, `Regards, ${sign(c(7))}`],
    facts: [fact('Workaround code', wa2)],
  });
  const place2 = places[1] as string;
  push({
    kind: 'personal', from: c(12), folder: 'archive', when: jan(27), labels: ['Personal'],
    subject: `Photos from ${place2}`,
    lines: [`Here are the photos from ${place2}.`, 'The sunset ones came out great.', sign(c(12))],
    attachments: [{ name: `${place2.toLowerCase().replace(/\s+/g, '-')}-photos.zip`, sizeKb: int(rng, 4000, 9000) }],
  });

  // --- sent ---
  push({
    kind: 'note', from: me, to: [c(1)], folder: 'sent', when: o(14) + 95, inReplyTo: timesheets, unread: false,
    subject: `Re: Timesheets due ${tsDay}`,
    lines: [`Hi ${c(1).first},`, 'Mine is in. Sam'],
  });
  push({
    kind: 'note', from: me, to: [c(10)], folder: 'sent', when: at(74, 11, 5), unread: false,
    subject: `Proposal draft for ${c(10).org}`,
    lines: [`Hi ${c(10).first},`, 'Attached is the first draft of our proposal.', 'Sam'],
    attachments: [{ name: 'proposal-draft.pdf', sizeKb: int(rng, 300, 900) }],
  });
  push({
    kind: 'personal', from: me, to: [c(14)], folder: 'sent', when: at(70, 20, 12), unread: false,
    subject: 'Weekend plans',
    lines: [`Hi ${c(14).first}, any plans for the weekend?`, 'Sam'],
  });
  push({
    kind: 'note', from: me, to: [c(8)], folder: 'sent', when: at(62, 9, 40), unread: false,
    subject: 'February receipts',
    lines: [`Hi ${c(8).first},`, 'Here are the receipts for February.', 'Sam'],
    attachments: [{ name: 'receipts-february.zip', sizeKb: int(rng, 800, 2000) }],
  });

  // --- trash ---
  push({
    kind: 'promo', from: SERVICE.deals, folder: 'trash', when: at(80, 7, 3),
    subject: '48-hour sale: 30% off standing desks',
    lines: ['Our biggest sale of the season ends soon.', 'Discount code: DESK30'],
    facts: [fact('Discount code', 'DESK30')],
  });
  push({
    kind: 'newsletter', from: SERVICE.digest, folder: 'trash', when: at(58, 7, 30),
    subject: `The Design Digest #${issue - 2}`,
    lines: ['This week: grids that bend without breaking.', `Issue: #${issue - 2}`],
  });

  // Ids follow the chronological order (m01 = oldest).
  const order = drafts.map((d, i) => ({ d, i })).sort((a, b) => a.d.when - b.d.when || a.i - b.i);
  const idOf = new Map<number, string>();
  order.forEach((x, k) => idOf.set(x.i, `m${String(k + 1).padStart(2, '0')}`));
  const messages: MailMessage[] = drafts.map((d, i) => {
    const id = idOf.get(i) as string;
    const m: MailMessage = {
      id,
      threadId: d.thread ? `t-${d.thread}` : `t-${id}`,
      from: d.from,
      to: d.to ?? [me],
      cc: d.cc ?? [],
      subject: d.subject,
      lines: d.lines,
      date: mailDateAt(d.when),
      attachments: d.attachments ?? [],
      folder: d.folder,
      unread: d.folder === 'inbox' ? (d.unread ?? true) && d.recent === true : false,
      starred: d.starred ?? false,
      labels: d.labels ?? [],
      kind: d.kind,
      facts: d.facts ?? [],
      recent: d.recent === true,
    };
    if (d.topic !== undefined) m.topic = d.topic;
    if (d.introduces !== undefined) m.introduces = d.introduces;
    if (d.inReplyTo !== undefined) m.inReplyTo = idOf.get(d.inReplyTo) as string;
    return m;
  });
  messages.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.id < b.id ? 1 : -1));
  return {
    seed,
    contacts,
    messages,
    byId: new Map(messages.map((m) => [m.id, m])),
    topics,
    heavySenders: [c(0).id, c(1).id, c(2).id],
    accountant: c(8).id,
  };
}

/** The contact with this email address (case-insensitive), if any. */
export function mailContactByEmail(data: MailData, email: string): MailContact | undefined {
  const e = email.toLowerCase();
  return data.contacts.find((x) => x.email === e);
}

/** Text of a message for search and `mentions` checks: names, addresses, subject, body, files. */
export function mailSearchText(m: MailMessage): string {
  const who = [m.from, ...m.to, ...m.cc].map((a) => `${a.name} ${a.email}`);
  return [m.subject, ...who, ...m.lines, ...m.attachments.map((a) => a.name)].join('\n').toLowerCase();
}

/** Short preview of a message body for list rows (at most 60 characters). */
export function mailSnippet(m: MailMessage): string {
  const text = m.lines.join(' ').replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 59).trimEnd()}…` : text;
}
