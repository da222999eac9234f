// The five exchange simulators started together, with the omnibook config that points `omnibook serve` at them:
// one simulator set several server processes can share (bench/sim-host.ts runs it as a process of its own; the
// cluster tests run it in the test process).
import { startKalshiSim } from '../../sim/kalshi/index.js';
import { startLimitlessSim } from '../../sim/limitless/index.js';
import { startOpinionSim } from '../../sim/opinion/index.js';
import { startPolymarketSim } from '../../sim/polymarket/index.js';
import { startPredictfunSim } from '../../sim/predictfun/index.js';

export interface SimHostConfig {
  /** An omnibook config file body: `venues` pointing at the simulators. */
  config: { venues: Record<string, Record<string, string>> };
  /** Environment the server needs beside it (operator API keys). */
  env: Record<string, string>;
  /** Each simulator's /__sim control base URL, by exchange id. */
  controls: Record<string, string>;
}

export interface SimSet {
  host: SimHostConfig;
  close(): Promise<void>;
}

export async function startSimSet(world: { seed?: number; size?: number } = {}): Promise<SimSet> {
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
  return {
    host,
    async close() {
      await Promise.allSettled(sims.map((s) => s.close()));
    },
  };
}
