// Validation of Task records (bundled or imported): the rules a task must meet before it is
// scheduled. Each problem names the proto field it is about. Pure logic.
import { SCHEMA_VERSION, type AnswerMatch, type Task } from '@owrl/proto';

export interface TaskIssue {
  /** Proto field path, e.g. `start_url`, `verifier.answer.accepted`. */
  field: string;
  /** Message that names the field and the offending value. */
  message: string;
}

function httpUrlIssue(field: string, value: string): TaskIssue | undefined {
  if (value.trim() === '') return { field, message: `${field} is missing` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { field, message: `${field} ${JSON.stringify(value)} is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { field, message: `${field} ${JSON.stringify(value)} must be http(s)` };
  }
  return undefined;
}

function answerIssues(field: string, a: AnswerMatch): TaskIssue[] {
  if (a.accepted.length === 0) return [{ field: `${field}.accepted`, message: `${field}.accepted has no accepted strings` }];
  const out: TaskIssue[] = [];
  a.accepted.forEach((s, i) => {
    if (s.trim() === '') out.push({ field: `${field}.accepted`, message: `${field}.accepted[${i}] is empty` });
  });
  return out;
}

/**
 * All problems of a task; empty when it is valid. A task needs an id, a suite, an http(s)
 * start_url, an instruction and a positive difficulty; a verifier is optional (real-website tasks
 * are judged by the model) but, when present, must be complete.
 */
export function validateTask(task: Task): TaskIssue[] {
  const issues: TaskIssue[] = [];
  if (task.schemaVersion !== 0 && task.schemaVersion !== SCHEMA_VERSION) {
    issues.push({
      field: 'schema_version',
      message: `schema_version ${task.schemaVersion} is not supported (this build reads ${SCHEMA_VERSION})`,
    });
  }
  if (task.id.trim() === '') issues.push({ field: 'id', message: 'id is missing' });
  else if (/\s/.test(task.id)) issues.push({ field: 'id', message: `id ${JSON.stringify(task.id)} must not contain whitespace` });
  if (task.suite.trim() === '') issues.push({ field: 'suite', message: 'suite is missing' });
  const url = httpUrlIssue('start_url', task.startUrl);
  if (url) issues.push(url);
  if (task.instruction.trim() === '') issues.push({ field: 'instruction', message: 'instruction is missing' });
  if (!Number.isInteger(task.difficulty) || task.difficulty < 1) {
    issues.push({ field: 'difficulty', message: `difficulty ${task.difficulty} is missing or not a positive integer` });
  }
  const v = task.verifier;
  if (v !== undefined) {
    switch (v.kind.case) {
      case undefined:
        issues.push({ field: 'verifier', message: 'verifier has no kind (answer, site_state or page_expression)' });
        break;
      case 'answer':
        issues.push(...answerIssues('verifier.answer', v.kind.value));
        break;
      case 'siteState': {
        const e = httpUrlIssue('verifier.site_state.endpoint', v.kind.value.endpoint);
        if (e) issues.push(e);
        const spec = v.kind.value.specJson;
        try {
          JSON.parse(spec);
        } catch {
          issues.push({ field: 'verifier.site_state.spec_json', message: `verifier.site_state.spec_json ${JSON.stringify(spec)} is not JSON` });
        }
        break;
      }
      case 'pageExpression':
        if (v.kind.value.expression.trim() === '') {
          issues.push({ field: 'verifier.page_expression.expression', message: 'verifier.page_expression.expression is empty' });
        }
        break;
    }
    if (v.alsoAnswer !== undefined) issues.push(...answerIssues('verifier.also_answer', v.alsoAnswer));
  }
  return issues;
}
