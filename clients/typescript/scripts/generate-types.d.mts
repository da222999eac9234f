// Types of generate-types.mjs, for the repository's TypeScript callers (the drift test, generate:client).
export declare const GENERATED_FILE: string;
export declare function renderTypes(document: unknown): Promise<string>;
