/** Types of architecture-plugin.mjs for the tests that read its rules. */
export declare const LIB_DEPENDENCIES: Readonly<Record<string, readonly string[]>>;
export declare const LIB_WINGS: Readonly<Record<string, readonly string[]>>;
export declare const architecture: { readonly meta: { readonly name: string }; readonly rules: object };
