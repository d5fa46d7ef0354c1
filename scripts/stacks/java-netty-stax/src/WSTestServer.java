// WSTest on Netty 4.1 with a StAX binding over Woodstox: the design of the fastest published
// WSTest servers (a JiBX binding over a fast StAX parser on a non-blocking NIO server), with the
// binding written by hand as JiBX would generate it. The five operations of wstest/wstest.wsdl,
// answered as wstest-server answers them: same namespaces, response shapes, GetOrder generator.

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;

import wstest.netty.NettyServe;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.XMLStreamWriter;

import com.ctc.wstx.stax.WstxInputFactory;
import com.ctc.wstx.stax.WstxOutputFactory;

public final class WSTestServer {
    static final String SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/";
    static final String XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
    static final String NS = "uri:WSTestWeb-TestService";
    static final DateTimeFormatter DATE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    // Factories are thread-safe once configured; readers and writers are made per request.
    static final XMLInputFactory INPUT = new WstxInputFactory();
    static final XMLOutputFactory OUTPUT = new WstxOutputFactory();

    static {
        INPUT.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        INPUT.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        INPUT.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        INPUT.setProperty(XMLInputFactory.IS_COALESCING, true);
    }

    /** A TestStruct, or a TestNode of a list; f and s may be nil (null). */
    static final class Struct {
        int i;
        Float f;
        String s;
    }

    static final class Fault extends Exception {
        Fault(String message) {
            super(message);
        }
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8082;
        NettyServe.serve("java-netty", "", port, new NettyServe.Binding() {
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

    static void writeFault(ByteBuf out, String reason) {
        try {
            XMLStreamWriter w = OUTPUT.createXMLStreamWriter(new ByteBufOutputStream(out), "UTF-8");
            startEnvelope(w);
            w.writeStartElement("soap", "Fault", SOAP_NS);
            w.writeStartElement("faultcode");
            w.writeCharacters("soap:Client");
            w.writeEndElement();
            w.writeStartElement("faultstring");
            w.writeCharacters(reason == null ? "bad request" : reason);
            w.writeEndElement();
            w.writeEndElement();
            endEnvelope(w);
        } catch (XMLStreamException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** Reads the request in `body` and writes the whole response envelope into `out`. */
    static void answer(ByteBuf body, ByteBuf out) throws Fault, XMLStreamException {
        XMLStreamReader r = INPUT.createXMLStreamReader(new ByteBufInputStream(body, false));
        expectStart(r, SOAP_NS, "Envelope");
        int event = r.nextTag();
        if (r.getLocalName().equals("Header") && SOAP_NS.equals(r.getNamespaceURI())) {
            skipElement(r);
            event = r.nextTag();
        }
        if (event != XMLStreamConstants.START_ELEMENT || !r.getLocalName().equals("Body")) {
            throw new Fault("no soap:Body");
        }
        if (r.nextTag() != XMLStreamConstants.START_ELEMENT || !NS.equals(r.getNamespaceURI())) {
            throw new Fault("the Body holds no WSTest operation");
        }
        String operation = r.getLocalName();
        XMLStreamWriter w = OUTPUT.createXMLStreamWriter(new ByteBufOutputStream(out), "UTF-8");
        startEnvelope(w);
        switch (operation) {
            case "EchoVoid":
                skipElement(r);
                startResponse(w, "EchoVoidResponse");
                break;
            case "EchoStruct": {
                List<Struct> items = new ArrayList<>();
                expectStart(r, NS, "array");
                while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
                    items.add(readStruct(r));
                }
                startResponse(w, "EchoStructResponse");
                w.writeStartElement("EchoStructResult");
                for (Struct item : items) {
                    w.writeStartElement("l");
                    writeStruct(w, item);
                    w.writeEndElement();
                }
                w.writeEndElement();
                break;
            }
            case "EchoList": {
                List<Struct> nodes = readList(r);
                startResponse(w, "EchoListResponse");
                if (nodes != null) {
                    w.writeStartElement("EchoListResult");
                    for (int idx = 0; idx < nodes.size(); idx++) {
                        if (idx > 0) {
                            w.writeStartElement("Next");
                        }
                        writeStruct(w, nodes.get(idx));
                    }
                    for (int idx = 0; idx < nodes.size(); idx++) {
                        w.writeEndElement();
                    }
                }
                break;
            }
            case "EchoSynthetic":
                echoSynthetic(r, w);
                break;
            case "GetOrder":
                getOrder(r, w);
                break;
            default:
                throw new Fault("unknown operation " + operation);
        }
        w.writeEndElement();
        endEnvelope(w);
    }

    static void startEnvelope(XMLStreamWriter w) throws XMLStreamException {
        w.writeStartElement("soap", "Envelope", SOAP_NS);
        w.writeNamespace("soap", SOAP_NS);
        w.writeNamespace("xsi", XSI_NS);
        w.writeStartElement("soap", "Body", SOAP_NS);
    }

    static void endEnvelope(XMLStreamWriter w) throws XMLStreamException {
        w.writeEndElement();
        w.writeEndElement();
        w.flush();
        w.close();
    }

    static void startResponse(XMLStreamWriter w, String name) throws XMLStreamException {
        w.writeStartElement(name);
        w.writeDefaultNamespace(NS);
    }

    static void expectStart(XMLStreamReader r, String ns, String name) throws Fault, XMLStreamException {
        if (r.nextTag() != XMLStreamConstants.START_ELEMENT || !name.equals(r.getLocalName())
                || !ns.equals(r.getNamespaceURI())) {
            throw new Fault("expected " + name);
        }
    }

    static void skipElement(XMLStreamReader r) throws XMLStreamException {
        int depth = 1;
        while (depth > 0) {
            int event = r.next();
            if (event == XMLStreamConstants.START_ELEMENT) {
                depth++;
            } else if (event == XMLStreamConstants.END_ELEMENT) {
                depth--;
            }
        }
    }

    static boolean isNil(XMLStreamReader r) {
        String nil = r.getAttributeValue(XSI_NS, "nil");
        return "true".equals(nil) || "1".equals(nil);
    }

    /** The reader is on a struct's start tag; leaves it on its end tag. */
    static Struct readStruct(XMLStreamReader r) throws Fault, XMLStreamException {
        Struct struct = new Struct();
        while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
            readField(r, struct);
        }
        return struct;
    }

    static void readField(XMLStreamReader r, Struct struct) throws Fault, XMLStreamException {
        String name = r.getLocalName();
        boolean nil = isNil(r);
        String text = r.getElementText();
        switch (name) {
            case "i":
                struct.i = Integer.parseInt(text.trim());
                break;
            case "f":
                struct.f = nil ? null : parseFloat(text.trim());
                break;
            case "s":
                struct.s = nil ? null : text;
                break;
            default:
                throw new Fault("unexpected element " + name);
        }
    }

    /** EchoList's nodes in order (null for an absent list); nesting is walked, not recursed. */
    static List<Struct> readList(XMLStreamReader r) throws Fault, XMLStreamException {
        if (r.nextTag() != XMLStreamConstants.START_ELEMENT) {
            return null;
        }
        List<Struct> nodes = new ArrayList<>();
        Struct current = new Struct();
        nodes.add(current);
        int depth = 1;
        while (depth > 0) {
            if (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
                if (r.getLocalName().equals("Next")) {
                    current = new Struct();
                    nodes.add(current);
                    depth++;
                } else {
                    readField(r, current);
                }
            } else {
                depth--;
            }
        }
        return nodes;
    }

    static void writeStruct(XMLStreamWriter w, Struct struct) throws XMLStreamException {
        w.writeStartElement("i");
        w.writeCharacters(Integer.toString(struct.i));
        w.writeEndElement();
        w.writeStartElement("f");
        if (struct.f == null) {
            w.writeAttribute("xsi", XSI_NS, "nil", "true");
        } else {
            w.writeCharacters(formatFloat(struct.f));
        }
        w.writeEndElement();
        w.writeStartElement("s");
        if (struct.s == null) {
            w.writeAttribute("xsi", XSI_NS, "nil", "true");
        } else {
            w.writeCharacters(struct.s);
        }
        w.writeEndElement();
    }

    static void echoSynthetic(XMLStreamReader r, XMLStreamWriter w) throws Fault, XMLStreamException {
        startResponse(w, "EchoSyntheticResponse");
        if (r.nextTag() != XMLStreamConstants.START_ELEMENT) {
            return;
        }
        String strng = null;
        Struct strct = null;
        byte[] barray = null;
        while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
            switch (r.getLocalName()) {
                case "Strng":
                    strng = r.getElementText();
                    break;
                case "Strct":
                    strct = readStruct(r);
                    break;
                case "Barray":
                    try {
                        barray = Base64.getMimeDecoder().decode(r.getElementText());
                    } catch (IllegalArgumentException error) {
                        throw new Fault("Barray is not base64: " + error.getMessage());
                    }
                    break;
                default:
                    throw new Fault("unexpected element " + r.getLocalName());
            }
        }
        w.writeStartElement("EchoSyntheticResult");
        if (strng != null) {
            w.writeStartElement("Strng");
            w.writeCharacters(strng);
            w.writeEndElement();
        }
        if (strct != null) {
            w.writeStartElement("Strct");
            writeStruct(w, strct);
            w.writeEndElement();
        }
        if (barray != null) {
            w.writeStartElement("Barray");
            w.writeCharacters(Base64.getEncoder().encodeToString(barray));
            w.writeEndElement();
        }
        w.writeEndElement();
    }

    static void getOrder(XMLStreamReader r, XMLStreamWriter w) throws Fault, XMLStreamException {
        int orderId = 0;
        int customerId = 0;
        int messageSize = 0;
        while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
            String name = r.getLocalName();
            int value;
            try {
                value = Integer.parseInt(r.getElementText().trim());
            } catch (NumberFormatException error) {
                throw new Fault("GetOrder/" + name + " is not an int");
            }
            switch (name) {
                case "orderId": orderId = value; break;
                case "customerId": customerId = value; break;
                case "messageSize": messageSize = value; break;
                default: throw new Fault("unexpected element " + name);
            }
        }
        if (messageSize < 0 || messageSize > 100000) {
            throw new Fault("GetOrder/messageSize is " + messageSize + ": it must be between 0 and 100000");
        }
        String now = DATE.format(Instant.now());
        String id = Integer.toString(customerId);
        startResponse(w, "GetOrderResponse");
        w.writeStartElement("GetOrderResult");
        text(w, "OrderId", Integer.toString(orderId));
        text(w, "OrderStatus", "1");
        text(w, "OrderDate", now);
        text(w, "OrderTotalAmount", "50.0");
        w.writeStartElement("Customer");
        text(w, "CustomerId", id);
        text(w, "ContactFirstName", "FirstName " + id);
        text(w, "ContactLastName", "LastName " + id);
        text(w, "ContactPhone", "425-882-8080");
        text(w, "LastActivityDate", now);
        text(w, "CreditCardNumber", "892374389740");
        text(w, "CreditCardExpirationDate", "12/12/2012");
        address(w, "BillingAddress", new String[] {"Bill FirstName ", "Bil1 LastName ", "Bill StreetAddress "}, id);
        address(w, "ShippingAddress", new String[] {"Ship FirstName ", "Ship LastName ", "Ship StreetAddress "}, id);
        w.writeEndElement();
        w.writeStartElement("LineItems");
        String description = "Test Product " + id;
        String order = Integer.toString(orderId);
        for (int item = 1; item <= messageSize; item++) {
            String itemId = Integer.toString(item);
            w.writeStartElement("LineItem");
            text(w, "OrderId", order);
            text(w, "ItemId", itemId);
            text(w, "ProductId", itemId);
            text(w, "ProductDescription", description);
            text(w, "OrderQuantity", "1");
            text(w, "UnitPrice", "5.0");
            w.writeEndElement();
        }
        w.writeEndElement();
        w.writeEndElement();
    }

    static void address(XMLStreamWriter w, String element, String[] prefixes, String id) throws XMLStreamException {
        w.writeStartElement(element);
        text(w, "FirstName", prefixes[0] + id);
        text(w, "LastName", prefixes[1] + id);
        text(w, "Address1", prefixes[2] + id);
        text(w, "Address2", "Street Address Line 2 " + id);
        text(w, "City", "City " + id);
        text(w, "State", "State " + id);
        text(w, "Zip", "12345");
        w.writeEndElement();
    }

    static void text(XMLStreamWriter w, String element, String value) throws XMLStreamException {
        w.writeStartElement(element);
        w.writeCharacters(value);
        w.writeEndElement();
    }

    static float parseFloat(String text) throws Fault {
        switch (text) {
            case "INF": return Float.POSITIVE_INFINITY;
            case "-INF": return Float.NEGATIVE_INFINITY;
            case "NaN": return Float.NaN;
            default:
                try {
                    return Float.parseFloat(text);
                } catch (NumberFormatException error) {
                    throw new Fault("not an xsd:float: " + text);
                }
        }
    }

    static String formatFloat(float value) {
        if (Float.isNaN(value)) return "NaN";
        if (value == Float.POSITIVE_INFINITY) return "INF";
        if (value == Float.NEGATIVE_INFINITY) return "-INF";
        return Float.toString(value);
    }
}
