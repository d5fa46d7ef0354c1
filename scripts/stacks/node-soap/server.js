// WSTest on node-soap over Node's http server: the service is generated from
// wstest/wstest.wsdl, and each operation answers as wstest-server does (same namespace,
// element names, response shapes and GetOrder generator). One cluster worker per core this
// process may use, as Node's documentation tunes a CPU-bound server.
'use strict';

const cluster = require('node:cluster');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const soap = require('soap');

const port = Number(process.argv[2] || 8082);

if (cluster.isPrimary) {
  const workers = os.availableParallelism();
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('exit', (worker, code) => {
    console.error(`worker ${worker.process.pid} exited (${code})`);
    process.exit(1);
  });
  return;
}

const wsdl = fs
  .readFileSync(path.join(__dirname, '..', '..', '..', 'wstest', 'wstest.wsdl'), 'utf8')
  .replace('{{ADDRESS}}', 'http://127.0.0.1/WSTest');

const BILLING = ['Bill FirstName ', 'Bil1 LastName ', 'Bill StreetAddress ', 'Street Address Line 2 ', 'City ', 'State '];
const SHIPPING = ['Ship FirstName ', 'Ship LastName ', 'Ship StreetAddress ', 'Street Address Line 2 ', 'City ', 'State '];

function address(prefixes, id) {
  const [FirstName, LastName, Address1, Address2, City, State] = prefixes.map((prefix) => prefix + id);
  return { FirstName, LastName, Address1, Address2, City, State, Zip: '12345' };
}

// WSTest's OrderBL.getOrder ("Bil1" typo included).
function getOrder({ orderId, customerId, messageSize }) {
  const size = Number(messageSize);
  if (!(size >= 0 && size <= 100000)) {
    throw { Fault: { faultcode: 'soap:Client', faultstring: `GetOrder/messageSize is ${messageSize}: it must be between 0 and 100000` } };
  }
  const now = new Date().toISOString();
  const LineItem = [];
  for (let i = 1; i <= size; i++) {
    LineItem.push({
      OrderId: orderId, ItemId: i, ProductId: i, ProductDescription: `Test Product ${customerId}`,
      OrderQuantity: 1, UnitPrice: '5.0',
    });
  }
  return {
    OrderId: orderId, OrderStatus: 1, OrderDate: now, OrderTotalAmount: '50.0',
    Customer: {
      CustomerId: customerId, ContactFirstName: `FirstName ${customerId}`, ContactLastName: `LastName ${customerId}`,
      ContactPhone: '425-882-8080', LastActivityDate: now, CreditCardNumber: '892374389740',
      CreditCardExpirationDate: '12/12/2012',
      BillingAddress: address(BILLING, customerId), ShippingAddress: address(SHIPPING, customerId),
    },
    LineItems: { LineItem },
  };
}

const service = {
  TestService: {
    TestServiceSoap: {
      EchoVoid: () => ({}),
      EchoStruct: (args) => ({ EchoStructResult: args.array }),
      EchoList: (args) => ({ EchoListResult: args.list }),
      EchoSynthetic: (args) => ({ EchoSyntheticResult: args.synth }),
      GetOrder: (args) => ({ GetOrderResult: getOrder(args) }),
    },
  },
};

// loadgen suite --tls passes a certificate: served with Node's own TLS (OpenSSL, https: HTTP/1.1
// only), unless the clients will speak HTTP/2 (WSTEST_HTTP2), which node-soap on Node's
// http2 module does not serve: then plain HTTP, and the suite's nginx in front.
const [cert, key] = [process.env.WSTEST_TLS_CERT, process.env.WSTEST_TLS_KEY];
const tls = cert && key && process.env.WSTEST_HTTP2 !== '1';
const notFound = (request, response) => {
  // node-soap answers the paths it listens on; anything else is not found.
  response.statusCode = 404;
  response.end();
};
const server = tls
  ? https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, notFound)
  : http.createServer(notFound);
server.keepAliveTimeout = 60_000;
soap.listen(server, { path: '/WSTest', services: service, xml: wsdl });
server.listen(port, '127.0.0.1', () => {
  if (cluster.worker.id === 1) {
    const { address: host, port: bound } = server.address();
    console.error(`node-soap listening on ${tls ? 'https' : 'http'}://${host}:${bound}/WSTest`);
  }
});
