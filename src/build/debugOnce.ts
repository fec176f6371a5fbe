// The one import of `debug` in the bundles (see bundle.ts): the others resolve to this module.
import createDebug from 'debug';

export default createDebug;
