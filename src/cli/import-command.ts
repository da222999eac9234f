// `omnibook import FILE`: reads an archive `omnibook export` wrote into the configured store. The whole file is
// verified first (format version, every record, the counts and the sha256); a corrupt, truncated or foreign file
// is refused with a message and changes nothing. Importing the same file twice adds nothing the second time.
import { ArchiveError } from '../store/archive/format.js';
import { importArchive } from '../store/archive/import-archive.js';
import { parse, UsageError } from './args.js';
import { openConfiguredStore } from './export-command.js';

const HELP = `usage: omnibook import FILE [--data-dir DIR | --database-url URL]

Adds the recorded window in FILE (written by omnibook export; docs/replay-format.md) to the configured store
(DATABASE_URL or --database-url, else the SQLite file in --data-dir): its books, states, trades and catalogue
rows, all in one transaction. Rows the store already has are kept as they are. The file's format version and
sha256 are checked before anything is written.
`;

export async function importCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0)
    throw new UsageError('one archive FILE is required (omnibook import --help)');
  const store = openConfiguredStore(values);
  try {
    await store.migrate();
    const { counts: c, added: a } = await importArchive(store.db, store.dialect, file);
    process.stdout.write(
      `imported ${file} into ${store.location}: ${a.book} of ${c.book} books, ${a.snapshot} of ${c.snapshot} states, ` +
        `${a.trade} of ${c.trade} trades, ${a.market} of ${c.market} markets, ${a.event} of ${c.event} events were new\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ArchiveError)
      throw new UsageError(`refused: ${error.message}; nothing was imported`);
    throw error;
  } finally {
    await store.close();
  }
}
