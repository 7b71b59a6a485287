/**
 * Runs before every test file: a REDIS_URL exported in the shell (or on CI)
 * would make every server a test starts share rate-limit budgets under the
 * default key prefix, across test files running at the same time. Tests that
 * want Redis set REDIS_URL and their own SVC_REDIS_PREFIX for the processes they
 * start.
 */
delete process.env.REDIS_URL
delete process.env.SVC_REDIS_PREFIX
