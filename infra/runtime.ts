/**
 * The Lambda runtime of every function. The Lambda-level tests run on the same Node major (scripts/lambda-node.mjs
 * reads this line); Node 24 is the current LTS, and the AWS SDK's releases from January 2027 need Node 22 or later.
 */
export const LAMBDA_RUNTIME = 'nodejs24.x';
