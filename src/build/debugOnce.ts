// The one import of `debug` in the bundles (see bundle.ts): the others resolve to this module.
import createDebug from 'debug';

// debug asks whether stderr is a terminal (isatty, a system call) for every logger it creates, and
// the engine creates loggers for every trie it builds: three per mined block, about 16 µs of a
// transfer. Whether stderr is a terminal does not change while the node runs: ask once.
const useColors = createDebug.useColors();
createDebug.useColors = () => useColors;

export default createDebug;
