/**
 * The baseline: the old platform server's list and create handlers as it was
 * published — Express behind express.json() and cors(), a mysql2 pool with the
 * driver's default settings, the joined SELECT ordered by create_time with no
 * LIMIT, the create as a prepared statement (pool.execute), errors as the
 * spec's bodies.
 */
import cors from 'cors';
import express from 'express';
import mysql from 'mysql2/promise';

const pool = mysql.createPool({
  host: process.env.MYSQL_HOST,
  port: Number(process.env.MYSQL_PORT),
  user: process.env.MYSQL_USER,
  password: process.env.MYSQL_PASSWORD,
  database: process.env.MYSQL_DATABASE,
});

const app = express();
app.use(cors());
app.use(express.json());

app.get('/healthz', (_req, res) => {
  res.json({ code: 200 });
});

app.get('/api/merchant/list', async (_req, res) => {
  try {
    const [rows] = await pool.query('SELECT * FROM merchants');
    res.json({ code: 200, message: '获取成功', data: rows });
  } catch (err) {
    res.json({ code: 500, message: '获取失败', error: String(err) });
  }
});

app.get('/api/service/list', async (req, res) => {
  const category = req.query.category;
  let sql =
    'SELECT s.*, m.name AS merchant_name FROM services s LEFT JOIN merchants m ON s.merchant_id = m.id';
  const params: unknown[] = [];
  if (typeof category === 'string' && category && category !== 'all') {
    sql += ' WHERE s.category = ?';
    params.push(category);
  }
  try {
    const [rows] = await pool.query(sql, params);
    res.json({ code: 200, message: '获取成功', data: rows });
  } catch (err) {
    res.json({ code: 500, message: '获取失败', error: String(err) });
  }
});

app.get('/api/order/list', async (req, res) => {
  const status = req.query.status;
  let sql =
    'SELECT o.*, s.name AS server_name, m.name AS merchant_name FROM orders o ' +
    'LEFT JOIN services s ON o.service_id = s.id LEFT JOIN merchants m ON s.merchant_id = m.id';
  const params: unknown[] = [];
  if (typeof status === 'string' && status !== '') {
    sql += ' WHERE o.status = ?';
    params.push(status);
  }
  sql += ' ORDER BY o.create_time DESC';
  try {
    const [rows] = await pool.query(sql, params);
    res.json({ code: 200, message: '获取成功', data: rows });
  } catch (err) {
    res.json({ code: 500, message: '获取失败', error: String(err) });
  }
});

app.post('/api/order/create', async (req, res) => {
  const { service_id, user_name, user_phone } = req.body ?? {};
  try {
    const [result] = await pool.execute(
      'INSERT INTO orders (service_id, user_name, user_phone) VALUES (?, ?, ?)',
      [service_id, user_name, user_phone],
    );
    res.json({
      code: 200,
      message: '创建定单成功',
      data: { id: (result as { insertId: number }).insertId },
    });
  } catch (err) {
    res.json({ code: 500, message: '创建定单失败', error: String(err) });
  }
});

app.listen(Number(process.env.PORT), '127.0.0.1');
