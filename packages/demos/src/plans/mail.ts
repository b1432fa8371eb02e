// Scripted solutions of every mail family: one PlanPolicy step per step of the family's route,
// built from the task's metadata; dates, senders and codes are read from the observed page.
import type { PlanCall, PlanStep, PolicyInput } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';
import { button, finish, link, meta, readText, write } from './common.js';

/**
 * The value of the first observed `Label: value` text whose container mentions `near`. An unread
 * row reads `Unread, From: <sender>` (a visually hidden prefix), so the label may follow `, `.
 */
function labelled(input: PolicyInput, label: string, near: string): string {
  return readText(input, new RegExp(`(?:^|, )${label}: (.+)$`), near);
}

const search = (q: string): PlanCall[] => [write(q, 'Search mail', 'searchbox'), { press: ['Enter'] }];

/** The family's route as a plan; `subject` overrides the message acted on (wrong-state runs). */
export function mailPlan(task: Task, subject = task.metadata['subject'] ?? ''): PlanStep[] {
  const fact = (i: PolicyInput): PlanCall => ({ done: labelled(i, meta(task, 'fact'), subject) });
  const replyRoute = (button1: string): PlanStep[] => [link(button1), write(meta(task, 'text'), 'Message'), button('Send'), finish];
  switch (task.family) {
    case 'inbox_date':
      return [(i) => ({ done: labelled(i, 'Received', subject) })];
    case 'inbox_sender':
      return [(i) => ({ done: labelled(i, 'From', subject) })];
    case 'open_message':
      return [link(subject), finish];
    case 'message_code':
      return [link(subject), fact];
    case 'star':
      return [button('Star', subject), finish];
    case 'contact_email':
      return [link('Contacts'), (i) => ({ done: labelled(i, 'Email', meta(task, 'contact')) })];
    case 'search_for':
      return [search(meta(task, 'query')), finish];
    case 'archive':
      return [link(subject), button('Archive'), finish];
    case 'delete':
      return [link(subject), button('Delete'), finish];
    case 'mark_unread':
      return [link(subject), button('Mark as unread'), finish];
    case 'label':
      return [link(subject), button(meta(task, 'label')), finish];
    case 'folder_code':
      return [link('Archive'), link(subject), fact];
    case 'search_code':
      return [search(subject), link(subject), fact];
    case 'search_delete':
      return [search(subject), link(subject), button('Delete'), finish];
    case 'reply':
      return [link(subject), ...replyRoute('Reply')];
    case 'reply_all':
      return [link(subject), ...replyRoute('Reply all')];
    case 'search_reply':
      return [search(subject), link(subject), ...replyRoute('Reply')];
    case 'forward':
      return [link(subject), link('Forward'), write(meta(task, 'contact'), 'To', 'combobox'), button('Send'), finish];
    case 'compose':
      return [
        link('Compose'), write(meta(task, 'contact'), 'To', 'combobox'), write(meta(task, 'subject'), 'Subject'), write(meta(task, 'text'), 'Message'),
        button('Send'), finish,
      ];
    case 'compose_lookup':
      return [
        link(subject), button('Star'), link('Compose'),
        // Enter in To picks the first autocomplete suggestion (the contact's "Name <address>").
        [write(meta(task, 'contact'), 'To', 'combobox'), { press: ['Enter'] }],
        write(meta(task, 'cc'), 'Cc', 'combobox'), write(meta(task, 'new_subject'), 'Subject'),
        write(`Hello! Could we talk about ${meta(task, 'text')} soon?`, 'Message'), button('Send'), finish,
      ];
    case 'triage': {
      const archive = JSON.parse(meta(task, 'archive_subjects')) as string[];
      const star = JSON.parse(meta(task, 'star_subjects')) as string[];
      return [
        search(meta(task, 'sender')),
        ...archive.flatMap((s) => [link(s), button('Archive')]),
        search(meta(task, 'topic')),
        ...star.map((s) => button('Star', s)),
        search(meta(task, 'question')), link(meta(task, 'question')), link('Reply'), write(meta(task, 'text'), 'Message'), button('Send'),
        search(meta(task, 'invoice')), link(meta(task, 'invoice')), link('Forward'), write(meta(task, 'contact'), 'To', 'combobox'), button('Send'),
        finish,
      ];
    }
    default:
      throw new Error(`no plan for family ${task.family}`);
  }
}
