// History entries (docs/design.md §5): each earlier step as text memory for the policy, in the requested
// mode — `full` keeps reasoning and effects, `hide_thinking` drops reasoning, `action_only` keeps
// only the calls. The policy's raw output travels along so a language model can replay its own
// turn (it applies the mode to that text itself). Pure logic.
import type { HistoryEntry, HistoryMode } from '@owrl/core';
import type { EpisodeStep } from './types.js';

export const HISTORY_MODES: readonly HistoryMode[] = ['full', 'hide_thinking', 'action_only'];

/** Effect line of an unparseable output (with the policy's reason when it gave one). */
export function parseErrorLine(detail?: string): string {
  const d = detail?.replace(/\s+/g, ' ').trim() ?? '';
  return d === '' ? 'error: output could not be parsed, no action taken' : `error: output could not be parsed, no action taken: ${d.slice(0, 500)}`;
}

export function historyEntry(step: EpisodeStep<unknown>, mode: HistoryMode): HistoryEntry {
  let effects = mode === 'action_only' ? [] : step.results.flatMap((r) => r.effects.map((e) => e.line));
  if (step.parseError && mode !== 'action_only') effects = [step.parseErrorLine ?? parseErrorLine()];
  return {
    step: step.index,
    reasoning: mode === 'full' ? step.reasoning : '',
    calls: step.results.map((r) => r.call),
    effects,
    url: step.urlBefore,
    ...(step.raw !== '' ? { raw: step.raw } : {}),
  };
}
