// History entries (DESIGN §5): each earlier step as text memory for the policy, in the requested
// mode — `full` keeps reasoning and effects, `hide_thinking` drops reasoning, `action_only` keeps
// only the calls. Pure logic.
import type { HistoryEntry, HistoryMode } from '@owrl/core';
import type { EpisodeStep } from './types.js';

export const HISTORY_MODES: readonly HistoryMode[] = ['full', 'hide_thinking', 'action_only'];

export function historyEntry(step: EpisodeStep<unknown>, mode: HistoryMode): HistoryEntry {
  let effects = mode === 'action_only' ? [] : step.results.flatMap((r) => r.effects.map((e) => e.line));
  if (step.parseError && mode !== 'action_only') effects = ['error: output could not be parsed, no action taken'];
  return {
    step: step.index,
    reasoning: mode === 'full' ? step.reasoning : '',
    calls: step.results.map((r) => r.call),
    effects,
    url: step.urlBefore,
  };
}
