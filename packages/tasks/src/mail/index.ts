// The bundled web mail's task layer: seeded mailbox, per-session mailbox rules, site-state
// verifier and task generator (suite `mail`).
export {
  MAIL_FOLDERS,
  MAIL_LABELS,
  MAIL_ME,
  MAIL_PAGE_SIZE,
  formatMailUsd,
  mailShortDate,
  mailLongDate,
  mailDateAnswers,
  mailDateAt,
  MAIL_TODAY_MINUTES,
  buildMailData,
  mailContactByEmail,
  mailSearchText,
  mailSnippet,
} from './mail-data.js';
export type {
  MailFolder,
  MailLabel,
  MailAddress,
  MailContact,
  MailAttachment,
  MailFact,
  MailKind,
  MailMessage,
  MailData,
} from './mail-data.js';
export {
  newMailboxState,
  mailEntries,
  mailEntry,
  listMailView,
  mailQueryTerms,
  searchMail,
  parseMailLabel,
  parseMailRecipients,
  formatMailRecipients,
  mailReplyAddressing,
  mailForwardSubject,
  sendMail,
} from './mail-state.js';
export type {
  MailFlags,
  MailboxState,
  MailView,
  MailEntry,
  MailOutgoing,
} from './mail-state.js';
export {
  mailSpecJson,
  parseMailSpec,
  checkMailbox,
} from './mail-verify.js';
export type {
  MailMessageExpect,
  MailSentExpect,
  MailSpec,
} from './mail-verify.js';
export {
  MAIL_SUITE,
  MAIL_SITE,
  MAIL_VERIFY_PATH,
  MAIL_FAMILIES,
  selectMailFamilies,
  mailFamilySize,
  buildMailTask,
  generateMailTasks,
  MAIL_SUITE_DEF,
} from './mail-tasks.js';
export type {
  MailFamilyName,
  MailFamily,
  GenerateMailTasksOptions,
} from './mail-tasks.js';
