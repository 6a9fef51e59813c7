// GET /api/v2/accounts/: the accounts the token can see. The Terraform provider checks its account id here at start.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AccountView, COMMON_ERROR_RESPONSES, dataEnvelope } from '@jobhooks/client/contract';
import { principalOf } from '../access-control';

export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/api/v2/accounts', {
    config: { access: 'account' },
    schema: {
      tags: ['accounts'],
      operationId: 'listAccounts',
      summary: 'List the accounts this token can access',
      response: { 200: dataEnvelope(z.array(AccountView)), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { account, token } = principalOf(request);
      const view = {
        id: account.id,
        name: account.name,
        plan: account.plan,
        identifier: account.identifier,
        permission_set: token.permissionSet,
      };
      return { data: [view], status: { code: 200 } };
    },
  });
};
