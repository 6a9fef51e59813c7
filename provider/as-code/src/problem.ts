// A problem found in the files, reported with where it is: `file:line: identifier: message`.

export interface Problem {
  file: string | null;
  line: number | null;
  /** The webhook's identifier, when the problem is inside one entry. */
  identifier: string | null;
  message: string;
}

export function formatProblem(problem: Problem): string {
  const where =
    problem.file === null ? '' : problem.line === null ? `${problem.file}: ` : `${problem.file}:${problem.line}: `;
  const entry = problem.identifier === null ? '' : `${problem.identifier}: `;
  return `${where}${entry}${problem.message}`;
}
