// The bundled wiki "Lorewell": seeded articles, list and search rules, the reading-list verifier
// spec and the task generator of suite `wiki`.
export { WIKI_KINDS, ARTICLES_PER_KIND, type WikiKind } from './wiki-world.js';
export {
  buildWiki,
  wikiFact,
  wikiNumber,
  type WikiArticle,
  type WikiCategory,
  type WikiData,
  type WikiFact,
  type WikiFactKey,
} from './wiki-data.js';
export { TIMELINE_ROWS, HISTORY_PARAGRAPHS, timelineSectionHeading, type Segment, type WikiEvent, type WikiSection } from './wiki-text.js';
export {
  WIKI_LISTS,
  cellText,
  findColumn,
  findList,
  listOfKind,
  searchWiki,
  sortedRows,
  type WikiColumnKey,
  type WikiList,
  type WikiListColumn,
  type WikiSearchHit,
  type WikiSearchResult,
  type WikiSortOrder,
} from './wiki-lists.js';
export { checkReadingList, parseReadingListSpec, readingListSpecJson, type ReadingListSpec } from './wiki-verify.js';
export { WIKI_FAMILIES, READING_LIST_SIZES, COMPARE_TOP, type WikiFamily, type WikiFamilyName } from './wiki-families.js';
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
  type GenerateWikiTasksOptions,
} from './wiki-tasks.js';
