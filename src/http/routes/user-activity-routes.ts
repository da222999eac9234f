// GET /user-activity: a wallet's public activity on several exchanges, each exchange's own document.
import type { FastifyInstance } from 'fastify';
import {
  USER_ACTIVITY_DEFAULT_EXCHANGES,
  USER_ACTIVITY_LIMIT_DEFAULT,
  USER_ACTIVITY_LIMIT_MAX,
  UserActivity,
  UserActivityQuery,
  type UserActivityService,
} from '../../services/market-data/user-activity-service.js';
import { AUTHED_ERRORS, ErrorBody } from '../schemas/common.js';
import { callerOf } from './caller.js';

export function userActivityRoutes(app: FastifyInstance, activity: UserActivityService): void {
  app.get<{ Querystring: UserActivityQuery }>(
    '/user-activity',
    {
      schema: {
        summary: "A wallet's public activity (positions and more) on several exchanges at once",
        description:
          `Asks each exchange in \`exchanges\` (default ${USER_ACTIVITY_DEFAULT_EXCHANGES.join(',')}) in ` +
          "parallel for the address's public activity and answers each exchange's own document under " +
          '`exchanges.<id>`: polymarket `{ positions, value }` (Data API positions rows and `[{user, value}]`), ' +
          'opinion `{ positions: {total, list}, trades: {total, list} }`, limitless `{ positions, ' +
          '"traded-volume" }` (each null when Limitless does not know the address), predictfun `{ positions, ' +
          `matches }\`. \`limit\` (1 to ${USER_ACTIVITY_LIMIT_MAX}, default ${USER_ACTIVITY_LIMIT_DEFAULT}) ` +
          'caps every list of each document. `status.<id>` says for every exchange asked whether it answered; ' +
          'an exchange that fails or does not answer within the venue deadline is `{ success: false, error }` ' +
          'and absent from `exchanges`, and never fails the call. The address is checked against every asked ' +
          "exchange's rule before any exchange is called (400). An unknown exchange is a 404; kalshi, which has " +
          'no public wallet activity, is a 501 when named. No credentials are taken or used.',
        tags: ['market data'],
        querystring: UserActivityQuery,
        response: { 200: UserActivity, ...AUTHED_ERRORS, 404: ErrorBody, 501: ErrorBody },
      },
    },
    (request) => activity.activity(request.query, callerOf(request)),
  );
}
