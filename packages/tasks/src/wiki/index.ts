// The bundled wiki "Lorewell": seeded articles, list and search rules, the reading-list verifier
// spec and the task generator of suite `wiki`.
export {
  WIKI_KINDS,
  ARTICLES_PER_KIND,
} from './wiki-world.js';
export type {
  WikiKind,
} from './wiki-world.js';
export {
  buildWiki,
  wikiFact,
  wikiNumber,
} from './wiki-data.js';
export type {
  WikiArticle,
  WikiCategory,
  WikiData,
  WikiFact,
  WikiFactKey,
} from './wiki-data.js';
export {
  TIMELINE_ROWS,
  HISTORY_PARAGRAPHS,
  timelineSectionHeading,
} from './wiki-text.js';
export type {
  Segment,
  WikiEvent,
  WikiSection,
} from './wiki-text.js';
export {
  WIKI_LISTS,
  cellText,
  findColumn,
  findList,
  listOfKind,
  searchWiki,
  sortedRows,
} from './wiki-lists.js';
export type {
  WikiColumnKey,
  WikiList,
  WikiListColumn,
  WikiSearchHit,
  WikiSearchResult,
  WikiSortOrder,
} from './wiki-lists.js';
export {
  checkReadingList,
  parseReadingListSpec,
  readingListSpecJson,
} from './wiki-verify.js';
export type {
  ReadingListSpec,
} from './wiki-verify.js';
export {
  WIKI_FAMILIES,
  READING_LIST_SIZES,
  COMPARE_TOP,
} from './wiki-families.js';
export type {
  WikiFamily,
  WikiFamilyName,
} from './wiki-families.js';
export {
  WIKI_SITE,
  WIKI_SUITE,
  WIKI_SUITE_DEF,
  WIKI_VERIFY_PATH,
  DEEP_FACT_ROWS,
  buildWikiTask,
  generateWikiTasks,
  selectWikiFamilies,
  wikiFamilySizes,
} from './wiki-tasks.js';
export type {
  GenerateWikiTasksOptions,
} from './wiki-tasks.js';
