import type { Router } from 'express';
import { endpointRouter } from '../http/endpoints.js';
import { dataEnvelope, errorEnvelope, msgEnvelope } from '../http/failure.js';
import { merchantHandlers } from './merchant.handlers.js';
import type { MerchantRepository } from './merchant.repository.js';

export function merchantRoutes(merchants: MerchantRepository): Router {
  const handle = merchantHandlers(merchants);
  return endpointRouter([
    {
      method: 'get',
      path: '/api/merchant/list',
      failure: errorEnvelope('获取失败'),
      handler: handle.list,
    },
    {
      method: 'post',
      path: '/api/merchant/add',
      failure: dataEnvelope('添加失败'),
      handler: handle.add,
    },
    {
      method: 'put',
      path: '/api/merchant/approve/:id',
      failure: msgEnvelope('商家不存在'),
      handler: handle.approve,
    },
  ]);
}
