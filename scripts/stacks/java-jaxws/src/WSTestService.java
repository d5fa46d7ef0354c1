// The WSTest service on JAX-WS, the reference implementation (Metro 2.3, Debian's
// libjaxws-java), the mainstream Java SOAP stack: the service endpoint interface and the JAXB
// types are generated from the repository's WSDL by wsimport at setup (build/gen), and this
// class implements it. It runs on the JDK's own HTTP server (com.sun.net.httpserver) with a
// fixed pool of threads sized for the cores this process may use.

import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

import javax.jws.WebService;
import javax.xml.datatype.DatatypeConfigurationException;
import javax.xml.datatype.DatatypeFactory;
import javax.xml.datatype.XMLGregorianCalendar;
import javax.xml.ws.Endpoint;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import wstest.ws.Address;
import wstest.ws.COfLineItem;
import wstest.ws.COfTestStruct;
import wstest.ws.Customer;
import wstest.ws.LineItem;
import wstest.ws.Order;
import wstest.ws.Synthetic;
import wstest.ws.TestNode;

@WebService(
        endpointInterface = "wstest.ws.TestServiceSoap",
        serviceName = "TestService",
        portName = "TestServiceSoap",
        targetNamespace = "uri:WSTestWeb-TestService")
public class WSTestService implements wstest.ws.TestServiceSoap {
    /** The largest GetOrder our server generates (wstest's limit). */
    private static final int MAX_MESSAGE_SIZE = 100_000;

    private static final DatatypeFactory DATES;

    private static final java.time.format.DateTimeFormatter MILLIS = java.time.format.DateTimeFormatter
            .ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(java.time.ZoneOffset.UTC);

    static {
        try {
            DATES = DatatypeFactory.newInstance();
        } catch (DatatypeConfigurationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public void echoVoid() {}

    // The echoes answer with what JAXB decoded.
    @Override
    public COfTestStruct echoStruct(COfTestStruct array) {
        return array;
    }

    @Override
    public TestNode echoList(TestNode list) {
        return list;
    }

    @Override
    public Synthetic echoSynthetic(Synthetic synth) {
        return synth;
    }

    private static Address address(String[] prefixes, String id) {
        Address address = new Address();
        address.setFirstName(prefixes[0] + id);
        address.setLastName(prefixes[1] + id);
        address.setAddress1(prefixes[2] + id);
        address.setAddress2(prefixes[3] + id);
        address.setCity(prefixes[4] + id);
        address.setState(prefixes[5] + id);
        address.setZip("12345");
        return address;
    }

    /** WSTest's OrderBL.getOrder, "Bil1" typo included, as wstest-server generates it. */
    @Override
    public Order getOrder(int orderId, int customerId, int messageSize) {
        if (messageSize < 0 || messageSize > MAX_MESSAGE_SIZE) {
            throw new IllegalArgumentException("GetOrder/messageSize must be between 0 and 100000");
        }
        String id = Integer.toString(customerId);
        // Always three fraction digits, as ours: Instant.toString() drops a zero fraction.
        XMLGregorianCalendar now = DATES.newXMLGregorianCalendar(MILLIS.format(java.time.Instant.now()));
        Customer customer = new Customer();
        customer.setCustomerId(customerId);
        customer.setContactFirstName("FirstName " + id);
        customer.setContactLastName("LastName " + id);
        customer.setContactPhone("425-882-8080");
        customer.setLastActivityDate(now);
        customer.setCreditCardNumber("892374389740");
        customer.setCreditCardExpirationDate("12/12/2012");
        customer.setBillingAddress(address(new String[] {"Bill FirstName ", "Bil1 LastName ",
                "Bill StreetAddress ", "Street Address Line 2 ", "City ", "State "}, id));
        customer.setShippingAddress(address(new String[] {"Ship FirstName ", "Ship LastName ",
                "Ship StreetAddress ", "Street Address Line 2 ", "City ", "State "}, id));
        COfLineItem items = new COfLineItem();
        List<LineItem> list = items.getLineItem();
        String description = "Test Product " + id;
        for (int i = 1; i <= messageSize; i++) {
            LineItem item = new LineItem();
            item.setOrderId(orderId);
            item.setItemId(i);
            item.setProductId(i);
            item.setProductDescription(description);
            item.setOrderQuantity(1);
            item.setUnitPrice(5f);
            list.add(item);
        }
        Order order = new Order();
        order.setOrderId(orderId);
        order.setOrderStatus(1);
        order.setOrderDate(now);
        order.setOrderTotalAmount(50f);
        order.setCustomer(customer);
        order.setLineItems(items);
        return order;
    }

    /** Usage: WSTestService PORT (0 picks a free port; the listening line on stderr names it). */
    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8082;
        int threads = Integer.getInteger("wstest.threads", 2 * Runtime.getRuntime().availableProcessors());
        // loadgen suite --tls passes a certificate: the JDK's HttpsServer serves it itself
        // (JSSE; HTTP/1.1 only), unless the clients will speak HTTP/2 (WSTEST_HTTP2), which it
        // does not: then plain HTTP, and the suite's nginx in front.
        String cert = System.getenv("WSTEST_TLS_CERT");
        String key = System.getenv("WSTEST_TLS_KEY");
        boolean tls = cert != null && key != null && !"1".equals(System.getenv("WSTEST_HTTP2"));
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
        HttpServer server;
        if (tls) {
            HttpsServer https = HttpsServer.create(address, 1024);
            https.setHttpsConfigurator(new HttpsConfigurator(sslContext(cert, key)));
            server = https;
        } else {
            server = HttpServer.create(address, 1024);
        }
        server.setExecutor(Executors.newFixedThreadPool(threads));
        HttpContext context = server.createContext("/WSTest");
        Endpoint.create(new WSTestService()).publish(context);
        server.start();
        System.err.println("java-jaxws: listening on " + (tls ? "https" : "http") + "://127.0.0.1:"
                + server.getAddress().getPort() + "/WSTest (" + threads + " threads)");
    }

    /** A TLS context from PEM files: the certificate chain, and a PKCS#8 key (EC, RSA or Ed25519). */
    static SSLContext sslContext(String certFile, String keyFile) throws Exception {
        String pem = Files.readString(Path.of(keyFile));
        String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body));
        PrivateKey privateKey = null;
        for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
            try {
                privateKey = KeyFactory.getInstance(algorithm).generatePrivate(spec);
                break;
            } catch (java.security.spec.InvalidKeySpecException notThisOne) {
                // Try the next algorithm.
            }
        }
        if (privateKey == null) {
            throw new IllegalArgumentException(keyFile + ": not a PKCS#8 EC, RSA or Ed25519 key");
        }
        byte[] chainBytes = Files.readAllBytes(Path.of(certFile));
        Certificate[] chain = CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(chainBytes))
                .toArray(new Certificate[0]);
        char[] password = new char[0];
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("server", privateKey, password, chain);
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, password);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }
}
