// WSTest on Netty 4.1 with a JiBX 1.2 binding: the design of the benchmark's fastest published
// Java servers (JiBX's generated marshalling over a pull parser, on a non-blocking NIO server).
// JiBX reads and writes the operations' elements (binding.xml); this file reads the SOAP
// envelope around them with the same JiBX unmarshalling context, and answers as wstest-server
// does: the same namespaces, response shapes and GetOrder generator.
package wstest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;

import wstest.netty.NettyServe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;

import org.jibx.runtime.BindingDirectory;
import org.jibx.runtime.IBindingFactory;
import org.jibx.runtime.IMarshallable;
import org.jibx.runtime.JiBXException;
import org.jibx.runtime.impl.MarshallingContext;
import org.jibx.runtime.impl.UnmarshallingContext;

public final class WSTestServer {
    static final String SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/";
    static final byte[] ENVELOPE_START = ("<soap:Envelope xmlns:soap=\"" + SOAP_NS
            + "\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soap:Body>")
            .getBytes(StandardCharsets.UTF_8);
    static final byte[] ENVELOPE_END = "</soap:Body></soap:Envelope>".getBytes(StandardCharsets.UTF_8);

    static final IBindingFactory FACTORY;

    static {
        try {
            FACTORY = BindingDirectory.getFactory("wstest", EchoVoid.class);
        } catch (JiBXException error) {
            throw new ExceptionInInitializerError(error);
        }
    }

    /**
     * JiBX's contexts are not thread-safe but are made to be reused (setDocument and setOutput
     * reset them): one pair per event-loop thread.
     */
    static final class Contexts {
        final UnmarshallingContext reader;
        final MarshallingContext writer;

        Contexts() throws JiBXException {
            reader = (UnmarshallingContext) FACTORY.createUnmarshallingContext();
            writer = (MarshallingContext) FACTORY.createMarshallingContext();
        }
    }

    static final ThreadLocal<Contexts> CONTEXTS = ThreadLocal.withInitial(() -> {
        try {
            return new Contexts();
        } catch (JiBXException error) {
            throw new IllegalStateException(error);
        }
    });

    static final class Fault extends Exception {
        Fault(String message) {
            super(message);
        }
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8082;
        NettyServe.serve("java-netty-jibx", ", parser "
                + System.getProperty("org.jibx.runtime.impl.parser", "JiBX's default"), port, new NettyServe.Binding() {
            @Override
            public void answer(ByteBuf body, ByteBuf out) throws Exception {
                WSTestServer.answer(body, out);
            }

            @Override
            public void fault(ByteBuf out, String reason) {
                writeFault(out, reason);
            }
        });
    }

    /** Reads the request in `body` and writes the whole response envelope into `out`. */
    static void answer(ByteBuf body, ByteBuf out) throws Fault, JiBXException, IOException {
        Contexts contexts = CONTEXTS.get();
        UnmarshallingContext reader = contexts.reader;
        reader.setDocument(new ByteBufInputStream(body, false), null);
        reader.toStart();
        if (!reader.isAt(SOAP_NS, "Envelope")) {
            throw new Fault("the document is not a soap:Envelope");
        }
        reader.parsePastStartTag(SOAP_NS, "Envelope");
        if (reader.isAt(SOAP_NS, "Header")) {
            reader.skipElement();
        }
        reader.parsePastStartTag(SOAP_NS, "Body");
        if (!reader.isStart()) {
            throw new Fault("the Body holds no WSTest operation");
        }
        Object response = respond(reader.unmarshalElement());
        MarshallingContext writer = contexts.writer;
        out.writeBytes(ENVELOPE_START);
        writer.setOutput(new ByteBufOutputStream(out), "UTF-8");
        ((IMarshallable) response).marshal(writer);
        writer.getXmlWriter().flush();
        out.writeBytes(ENVELOPE_END);
    }

    /** The operation's answer to a request JiBX has read. */
    static Object respond(Object request) throws Fault {
        if (request instanceof EchoVoid) {
            return new EchoVoidResponse();
        } else if (request instanceof EchoStruct) {
            EchoStructResponse response = new EchoStructResponse();
            response.items = ((EchoStruct) request).items;
            return response;
        } else if (request instanceof EchoList) {
            EchoListResponse response = new EchoListResponse();
            response.result = ((EchoList) request).list;
            return response;
        } else if (request instanceof EchoSynthetic) {
            EchoSyntheticResponse response = new EchoSyntheticResponse();
            response.result = ((EchoSynthetic) request).synth;
            return response;
        } else if (request instanceof GetOrder) {
            return getOrder((GetOrder) request);
        }
        throw new Fault("the Body holds no WSTest operation");
    }

    static GetOrderResponse getOrder(GetOrder request) throws Fault {
        int messageSize = request.messageSize;
        if (messageSize < 0 || messageSize > 100000) {
            throw new Fault("GetOrder/messageSize is " + messageSize + ": it must be between 0 and 100000");
        }
        Date now = new Date();
        String id = Integer.toString(request.customerId);
        Order order = new Order();
        order.orderId = request.orderId;
        order.orderStatus = 1;
        order.orderDate = now;
        order.orderTotalAmount = 50.0f;
        Customer customer = new Customer();
        customer.customerId = request.customerId;
        customer.contactFirstName = "FirstName " + id;
        customer.contactLastName = "LastName " + id;
        customer.contactPhone = "425-882-8080";
        customer.lastActivityDate = now;
        customer.creditCardNumber = "892374389740";
        customer.creditCardExpirationDate = "12/12/2012";
        customer.billingAddress = address("Bill FirstName ", "Bil1 LastName ", "Bill StreetAddress ", id);
        customer.shippingAddress = address("Ship FirstName ", "Ship LastName ", "Ship StreetAddress ", id);
        order.customer = customer;
        String description = "Test Product " + id;
        ArrayList<LineItem> items = new ArrayList<>(messageSize);
        for (int item = 1; item <= messageSize; item++) {
            LineItem line = new LineItem();
            line.orderId = request.orderId;
            line.itemId = item;
            line.productId = item;
            line.productDescription = description;
            line.orderQuantity = 1;
            line.unitPrice = 5.0f;
            items.add(line);
        }
        order.lineItems = items;
        GetOrderResponse response = new GetOrderResponse();
        response.result = order;
        return response;
    }

    static Address address(String first, String last, String street, String id) {
        Address address = new Address();
        address.firstName = first + id;
        address.lastName = last + id;
        address.address1 = street + id;
        address.address2 = "Street Address Line 2 " + id;
        address.city = "City " + id;
        address.state = "State " + id;
        address.zip = "12345";
        return address;
    }

    static void writeFault(ByteBuf out, String reason) {
        out.writeBytes(ENVELOPE_START);
        out.writeCharSequence("<soap:Fault><faultcode>soap:Client</faultcode><faultstring>", StandardCharsets.UTF_8);
        out.writeCharSequence(escape(reason), StandardCharsets.UTF_8);
        out.writeCharSequence("</faultstring></soap:Fault>", StandardCharsets.UTF_8);
        out.writeBytes(ENVELOPE_END);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
