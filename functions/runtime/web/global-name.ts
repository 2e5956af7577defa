/** The global object that holds the Lambda bundles' web classes (install.ts sets it, scripts/build.ts points at it). */
export const WEB_CLASSES_GLOBAL = '__memgateWebClasses';
