/**
 * Node's on-disk cache of compiled code, turned on before anything else is required.
 * Start-up is mostly loading ~2,500 modules and a fifth of it is V8 compiling them (issue
 * 29's profile); with the cache a restart reuses the compiled code. Node 22.1 and later
 * have it (`module.enableCompileCache`); on Node 20 this does nothing. A cache that does not
 * match the file (a new build) is ignored and rewritten by Node itself;
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
import nodeModule from "node:module";

const withCache = nodeModule as typeof nodeModule & { enableCompileCache?: () => unknown };
withCache.enableCompileCache?.();
