// Errors of the command line: a UsageError (bad flags or arguments) exits with status 2, any other
// error with 1; both print `owrl: <message>`.
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
