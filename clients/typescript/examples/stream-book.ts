// A live book over the client's one WebSocket: updates until it has seen a few, then unsubscribes.
//   OMNIBOOK_URL=http://127.0.0.1:8080 OMNIBOOK_API_KEY=… node --import tsx clients/typescript/examples/stream-book.ts [SVC_ID]
import { OmnibookClient } from '@omnibook/client';

const client = new OmnibookClient({
  baseUrl: process.env.OMNIBOOK_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.OMNIBOOK_API_KEY,
});
const svcId =
  process.argv[2] ?? (await client.markets({ exchanges: 'polymarket', limit: 1 })).markets[0]?.svc_id;
if (!svcId) throw new Error('no market');

const stream = client.stream();
stream.on('reconnecting', ({ attempt, delayMs }) =>
  console.log(`reconnecting (#${attempt}) in ${delayMs} ms`),
);
// Resolves on the first snapshot; an unknown id rejects (market_not_found), it never hangs.
const book = await stream.subscribeBook({ svc_id: svcId, depth: 5 });
book.on('stale', ({ reason }) => console.log(`stale: ${reason}`));
book.on('gap', ({ expected, received }) =>
  console.log(`gap: expected ${expected}, got ${received}; resyncing`),
);

let seen = 0;
// A slow loop gets the newest book each time (intermediate states are skipped, memory stays bounded).
for await (const view of book.updates()) {
  console.log(
    `${view.state} seq ${view.server_seq}  best bid ${view.bids[0]?.[0]}  best ask ${view.asks[0]?.[0]}`,
  );
  if (++seen === Number(process.env.UPDATES ?? 3)) break;
}
await book.unsubscribe();
stream.close();
