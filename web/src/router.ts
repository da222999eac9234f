// Hash routes (#/search, #/market/<svc_id>, #/crossvenue/<svc_id>, #/account): the server serves one index.html and
// needs no fallback route, and the back button works.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  page: 'search' | 'market' | 'crossvenue' | 'account';
  arg: string | null;
  /** What follows `?` in the hash (e.g. #/account?market=<svc_id>). */
  params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const [, page, ...rest] = path.split('/');
  const arg = rest.length > 0 ? decodeURIComponent(rest.join('/')) : null;
  const params = new URLSearchParams(search);
  if (page === 'market' || page === 'crossvenue' || page === 'account') return { page, arg, params };
  return { page: 'search', arg: null, params };
}

export function href(page: Route['page'], arg?: string): string {
  return arg ? `#/${page}/${encodeURIComponent(arg)}` : `#/${page}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
