import { Gauge, type Registry } from 'prom-client';
import type { OrderRepository } from './orders/order.repository.js';

/**
 * What the platform adds to the shared metrics: new orders waiting for a turn
 * to share an INSERT. They wait for a MySQL connection as the pool's own queue
 * does, so saturation reads `mysql_pool_connections{state="queued"}` plus this.
 */
export function platformMetrics(registry: Registry, orders: OrderRepository): void {
  new Gauge({
    name: 'mysql_insert_rows_waiting',
    help: 'New orders waiting for a MySQL connection, to be written together in one INSERT',
    registers: [registry],
    collect() {
      this.set(orders.insertsWaiting());
    },
  });
}
