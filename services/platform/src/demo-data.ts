import type { Pool, ResultSetHeader, RowDataPacket } from '@svc/common';

interface DemoService {
  name: string;
  price: string;
  category: string;
  stock: number;
  status: 0 | 1;
  orders: { user_name: string; user_phone: string; status: 0 | 1 }[];
}

interface DemoMerchant {
  name: string;
  address: string;
  phone: string;
  status: 0 | 1;
  services: DemoService[];
}

/** A few of everything, in the words the clients use, some approved or published and some not. */
const DEMO: DemoMerchant[] = [
  {
    name: '张三家政',
    address: '北京市朝阳区建国路88号',
    phone: '13800000001',
    status: 1,
    services: [
      {
        name: '日常保洁',
        price: '150.00',
        category: '保洁',
        stock: 10,
        status: 1,
        orders: [{ user_name: '李四', user_phone: '13912345678', status: 0 }],
      },
      { name: '深度保洁', price: '300.00', category: '保洁', stock: 5, status: 1, orders: [] },
    ],
  },
  {
    name: '李四维修',
    address: '上海市浦东新区世纪大道100号',
    phone: '13800000002',
    status: 1,
    services: [
      {
        name: '水电维修',
        price: '80.00',
        category: '维修',
        stock: 20,
        status: 1,
        orders: [{ user_name: '王小明', user_phone: '13987654321', status: 1 }],
      },
      { name: '家电维修', price: '120.00', category: '维修', stock: 0, status: 0, orders: [] },
    ],
  },
  {
    name: '王五家政',
    address: '广州市天河区体育西路1号',
    phone: '13800000003',
    status: 0,
    services: [
      { name: '育儿嫂', price: '6800.00', category: '家政', stock: 2, status: 0, orders: [] },
    ],
  },
];

interface SeedCounts {
  merchants: number;
  services: number;
  orders: number;
}

/**
 * Adds each demo row that is not there yet (a merchant by name and phone, a
 * service by merchant and name, an order by service, name and phone), so a
 * second run adds nothing. Returns how many rows of each it added.
 */
export async function seedDemoData(pool: Pool): Promise<SeedCounts> {
  const added: SeedCounts = { merchants: 0, services: 0, orders: 0 };
  /** The id of the row `find` matches, inserted by `insert` first when there is none. */
  async function ensure(
    table: keyof SeedCounts,
    find: [string, unknown[]],
    insert: [string, unknown[]],
  ): Promise<number> {
    const [rows] = await pool.query<RowDataPacket[]>(...find);
    if (rows[0]) return rows[0].id as number;
    const [result] = await pool.query<ResultSetHeader>(...insert);
    added[table] += 1;
    return result.insertId;
  }

  for (const merchant of DEMO) {
    const merchantId = await ensure(
      'merchants',
      [
        'SELECT id FROM merchants WHERE name = ? AND phone = ? LIMIT 1',
        [merchant.name, merchant.phone],
      ],
      [
        'INSERT INTO merchants (name, address, phone, status) VALUES (?, ?, ?, ?)',
        [merchant.name, merchant.address, merchant.phone, merchant.status],
      ],
    );
    for (const service of merchant.services) {
      const serviceId = await ensure(
        'services',
        [
          'SELECT id FROM services WHERE merchant_id = ? AND name = ? LIMIT 1',
          [merchantId, service.name],
        ],
        [
          'INSERT INTO services (merchant_id, name, price, category, stock, status) VALUES (?, ?, ?, ?, ?, ?)',
          [
            merchantId,
            service.name,
            service.price,
            service.category,
            service.stock,
            service.status,
          ],
        ],
      );
      for (const order of service.orders) {
        await ensure(
          'orders',
          [
            'SELECT id FROM orders WHERE service_id = ? AND user_name = ? AND user_phone = ? LIMIT 1',
            [serviceId, order.user_name, order.user_phone],
          ],
          [
            'INSERT INTO orders (service_id, user_name, user_phone, status) VALUES (?, ?, ?, ?)',
            [serviceId, order.user_name, order.user_phone, order.status],
          ],
        );
      }
    }
  }
  return added;
}
