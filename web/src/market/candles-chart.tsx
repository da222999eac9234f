// Price candles from GET /price, drawn with lightweight-charts (canvas; the library sets styles through the DOM,
// which the console's CSP allows).
import type { Result } from '@omnibook/client';
import { CandlestickSeries, createChart, type IChartApi, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef } from 'preact/hooks';

type Candles = Result<'/api/v1/price'>['candles'];

export function CandlesChart({ candles, label }: { candles: Candles; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<IChartApi | null>(null);
  useEffect(() => {
    if (!box.current) return;
    const c = createChart(box.current, {
      autoSize: true,
      layout: { background: { color: '#ffffff' }, textColor: '#1f2933', attributionLogo: false },
      grid: { vertLines: { color: '#eef1f4' }, horzLines: { color: '#eef1f4' } },
      rightPriceScale: { borderColor: '#c9d1d9' },
      timeScale: { borderColor: '#c9d1d9', timeVisible: true },
    });
    chart.current = c;
    return () => {
      c.remove();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    const series = c.addSeries(CandlestickSeries, {
      upColor: '#0a7d38',
      downColor: '#b42318',
      wickUpColor: '#0a7d38',
      wickDownColor: '#b42318',
      borderVisible: false,
      priceFormat: { type: 'price', precision: 3, minMove: 0.001 },
    });
    const seen = new Set<number>();
    const data = [];
    for (const k of [...candles].sort((a, b) => a.timestamp.localeCompare(b.timestamp))) {
      const time = Math.floor(Date.parse(k.timestamp) / 1000);
      if (seen.has(time)) continue;
      seen.add(time);
      data.push({ time: time as UTCTimestamp, open: k.open, high: k.high, low: k.low, close: k.close });
    }
    series.setData(data);
    c.timeScale().fitContent();
    return () => {
      // Unmounting removes the chart (and its series) first: then there is nothing left to remove.
      if (chart.current === c) c.removeSeries(series);
    };
  }, [candles]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}
