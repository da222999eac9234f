// The five exchange simulators in a process of their own, so a benchmark of `omnibook serve` measures our server
// and not the simulators sharing its event loop. Writes the omnibook config that points every venue at them (and
// the operator keys they expect) to BENCH_SIM_CONFIG_FILE, then prints `listening on …` and runs until SIGTERM.
import { writeFileSync } from 'node:fs';
import { startKalshiSim } from '../sim/kalshi/index.js';
import { startLimitlessSim } from '../sim/limitless/index.js';
import { startOpinionSim } from '../sim/opinion/index.js';
import { startPolymarketSim } from '../sim/polymarket/index.js';
import { startPredictfunSim } from '../sim/predictfun/index.js';

export interface SimHostConfig {
  /** An omnibook config file body: `venues` pointing at the simulators. */
  config: { venues: Record<string, Record<string, string>> };
  /** Environment the server needs beside it (operator API keys). */
  env: Record<string, string>;
  /** Each simulator's /__sim control base URL, by exchange id. */
  controls: Record<string, string>;
}

async function main(): Promise<void> {
  const file = process.env.BENCH_SIM_CONFIG_FILE;
  if (!file) throw new Error('BENCH_SIM_CONFIG_FILE is not set');
  const world = {
    seed: 7,
    ...(process.env.BENCH_SIM_SIZE ? { size: Number(process.env.BENCH_SIM_SIZE) } : {}),
  };
  const polymarket = await startPolymarketSim(world);
  const kalshi = await startKalshiSim(world);
  const limitless = await startLimitlessSim(world);
  const opinion = await startOpinionSim(world);
  const predictfun = await startPredictfunSim(world);
  const sims = [polymarket, kalshi, limitless, opinion, predictfun];
  // Kalshi signs every WebSocket connection: the server gets a market-data key as an operator would configure.
  const stream = (await kalshi.createAccount()).credentials;
  const host: SimHostConfig = {
    config: {
      venues: {
        polymarket: {
          gammaUrl: polymarket.urls.gamma,
          clobUrl: polymarket.urls.clob,
          dataUrl: polymarket.urls.data,
          wsMarketUrl: polymarket.urls.wsMarket,
          wsUserUrl: polymarket.urls.wsUser,
        },
        kalshi: {
          restUrl: kalshi.url,
          wsUrl: kalshi.wsUrl,
          streamApiKeyId: stream.api_key_id ?? '',
          streamPrivateKey: stream.private_key ?? '',
        },
        limitless: { restUrl: limitless.url, wsUrl: limitless.wsUrl },
        opinion: { restUrl: opinion.url },
        predictfun: {
          restUrl: predictfun.url,
          rpcUrl: predictfun.rpcUrl,
          collateralToken: predictfun.collateralToken,
        },
      },
    },
    env: { OPINION_API_KEY: opinion.apiKey, PREDICTFUN_API_KEY: predictfun.apiKey },
    controls: {
      polymarket: polymarket.control,
      kalshi: kalshi.control,
      limitless: limitless.control,
      opinion: opinion.control,
      predictfun: predictfun.control,
    },
  };
  writeFileSync(file, JSON.stringify(host), { mode: 0o600 });
  const stop = () => {
    Promise.allSettled(sims.map((s) => s.close())).finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`listening on ${polymarket.control}\n`);
}

main().catch((error) => {
  process.stderr.write(`sim-host: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
