export declare const MALLOC_SETTINGS: Readonly<Record<string, string>>;
export declare function serverEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
