// The task files a run file names, read and checked before anything starts: a file that cannot be
// read or holds a bad task is reported at its entry in the run file, with the task file's line.
import { formatProblem, resolveRunPath, type LoadedRunFile } from '@owrl/run-file';
import { isTaskError, readTaskFile } from '@owrl/tasks';
import { TrainRefused } from './train-refused.js';

/** @throws TrainRefused naming each bad file (exit 2). */
export async function checkTaskFiles(loaded: LoadedRunFile): Promise<void> {
  const problems: string[] = [];
  const files = loaded.run.tasks.files ?? [];
  for (let i = 0; i < files.length; i++) {
    const file = resolveRunPath(loaded, files[i] as string);
    try {
      const tasks = await readTaskFile(file);
      if (tasks.length === 0) problems.push(formatProblem({ where: loaded.where(['tasks', 'files', i]), key: `tasks.files[${i}]`, message: `${file} holds no tasks` }));
    } catch (e) {
      if (!isTaskError(e)) throw e;
      problems.push(formatProblem({ where: loaded.where(['tasks', 'files', i]), key: `tasks.files[${i}]`, message: e.message }));
    }
  }
  if (problems.length > 0) throw new TrainRefused(problems.join('\n'), { located: true });
}
