// WSTest on Go's standard library: net/http and encoding/xml, the stack a Go team writes first.
// The five operations of wstest/wstest.wsdl, answered as wstest-server answers them: the same
// namespaces, response shapes and GetOrder generator.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

const (
	soapNS  = "http://schemas.xmlsoap.org/soap/envelope/"
	xsiNS   = "http://www.w3.org/2001/XMLSchema-instance"
	maxBody = 4 << 20
)

// isNil says whether an element carries xsi:nil="true" (or "1").
func isNil(start xml.StartElement) bool {
	for _, attr := range start.Attr {
		if attr.Name.Space == xsiNS && attr.Name.Local == "nil" && (attr.Value == "true" || attr.Value == "1") {
			return true
		}
	}
	return false
}

// Float is an xsd:float that may be nil (xsi:nil="true").
type Float struct {
	Value float32
	Nil   bool
}

func (f *Float) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	if isNil(start) {
		f.Nil = true
		return d.Skip()
	}
	var text string
	if err := d.DecodeElement(&text, &start); err != nil {
		return err
	}
	value, err := parseFloat(strings.TrimSpace(text))
	f.Value = value
	return err
}

func (f Float) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if f.Nil {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "xsi:nil"}, Value: "true"})
		return e.EncodeElement("", start)
	}
	return e.EncodeElement(formatFloat(f.Value), start)
}

// String is an xsd:string that may be nil.
type String struct {
	Value string
	Nil   bool
}

func (s *String) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	if isNil(start) {
		s.Nil = true
		return d.Skip()
	}
	return d.DecodeElement(&s.Value, &start)
}

func (s String) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if s.Nil {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "xsi:nil"}, Value: "true"})
	}
	return e.EncodeElement(s.Value, start)
}

// Base64 is an xsd:base64Binary.
type Base64 []byte

func (b *Base64) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	var text string
	if err := d.DecodeElement(&text, &start); err != nil {
		return err
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
	*b = decoded
	return err
}

func (b Base64) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	return e.EncodeElement(base64.StdEncoding.EncodeToString(b), start)
}

// The request side reads qualified names, so any prefix or default namespace works.
type TestStruct struct {
	I int32  `xml:"uri:WSTestWeb-TestService i"`
	F Float  `xml:"uri:WSTestWeb-TestService f"`
	S String `xml:"uri:WSTestWeb-TestService s"`
}

type TestNode struct {
	I    int32     `xml:"uri:WSTestWeb-TestService i"`
	F    Float     `xml:"uri:WSTestWeb-TestService f"`
	S    String    `xml:"uri:WSTestWeb-TestService s"`
	Next *TestNode `xml:"uri:WSTestWeb-TestService Next"`
}

type Synthetic struct {
	Strng  *string     `xml:"uri:WSTestWeb-TestService Strng"`
	Strct  *TestStruct `xml:"uri:WSTestWeb-TestService Strct"`
	Barray *Base64     `xml:"uri:WSTestWeb-TestService Barray"`
}

type requestBody struct {
	EchoVoid   *struct{} `xml:"uri:WSTestWeb-TestService EchoVoid"`
	EchoStruct *struct {
		Array []TestStruct `xml:"uri:WSTestWeb-TestService array>l"`
	} `xml:"uri:WSTestWeb-TestService EchoStruct"`
	EchoList *struct {
		List *TestNode `xml:"uri:WSTestWeb-TestService list"`
	} `xml:"uri:WSTestWeb-TestService EchoList"`
	EchoSynthetic *struct {
		Synth *Synthetic `xml:"uri:WSTestWeb-TestService synth"`
	} `xml:"uri:WSTestWeb-TestService EchoSynthetic"`
	GetOrder *struct {
		OrderID     int32 `xml:"uri:WSTestWeb-TestService orderId"`
		CustomerID  int32 `xml:"uri:WSTestWeb-TestService customerId"`
		MessageSize int32 `xml:"uri:WSTestWeb-TestService messageSize"`
	} `xml:"uri:WSTestWeb-TestService GetOrder"`
}

type requestEnvelope struct {
	XMLName xml.Name    `xml:"http://schemas.xmlsoap.org/soap/envelope/ Envelope"`
	Body    requestBody `xml:"http://schemas.xmlsoap.org/soap/envelope/ Body"`
}

// The response side: the operation element declares the service namespace as the default one,
// and its children inherit it.
type outStruct struct {
	I int32  `xml:"i"`
	F Float  `xml:"f"`
	S String `xml:"s"`
}

type outNode struct {
	I    int32    `xml:"i"`
	F    Float    `xml:"f"`
	S    String   `xml:"s"`
	Next *outNode `xml:"Next,omitempty"`
}

type outSynthetic struct {
	Strng  *string    `xml:"Strng,omitempty"`
	Strct  *outStruct `xml:"Strct,omitempty"`
	Barray *Base64    `xml:"Barray,omitempty"`
}

type Address struct {
	FirstName, LastName, Address1, Address2, City, State, Zip string
}

type Customer struct {
	CustomerId               int32
	ContactFirstName         string
	ContactLastName          string
	ContactPhone             string
	LastActivityDate         string
	CreditCardNumber         string
	CreditCardExpirationDate string
	BillingAddress           Address
	ShippingAddress          Address
}

type LineItem struct {
	OrderId            int32
	ItemId             int32
	ProductId          int32
	ProductDescription string
	OrderQuantity      int32
	UnitPrice          Float
}

type Order struct {
	OrderId          int32
	OrderStatus      int32
	OrderDate        string
	OrderTotalAmount Float
	Customer         Customer
	LineItems        []LineItem `xml:"LineItems>LineItem"`
}

type echoVoidResponse struct {
	XMLName xml.Name `xml:"uri:WSTestWeb-TestService EchoVoidResponse"`
}

type echoStructResponse struct {
	XMLName xml.Name    `xml:"uri:WSTestWeb-TestService EchoStructResponse"`
	Result  []outStruct `xml:"EchoStructResult>l"`
}

type echoListResponse struct {
	XMLName xml.Name `xml:"uri:WSTestWeb-TestService EchoListResponse"`
	Result  *outNode `xml:"EchoListResult,omitempty"`
}

type echoSyntheticResponse struct {
	XMLName xml.Name      `xml:"uri:WSTestWeb-TestService EchoSyntheticResponse"`
	Result  *outSynthetic `xml:"EchoSyntheticResult,omitempty"`
}

type getOrderResponse struct {
	XMLName xml.Name `xml:"uri:WSTestWeb-TestService GetOrderResponse"`
	Result  Order    `xml:"GetOrderResult"`
}

func parseFloat(text string) (float32, error) {
	switch text {
	case "INF":
		return float32(math.Inf(1)), nil
	case "-INF":
		return float32(math.Inf(-1)), nil
	case "NaN":
		return float32(math.NaN()), nil
	}
	value, err := strconv.ParseFloat(text, 32)
	return float32(value), err
}

func formatFloat(value float32) string {
	switch {
	case math.IsInf(float64(value), 1):
		return "INF"
	case math.IsInf(float64(value), -1):
		return "-INF"
	case math.IsNaN(float64(value)):
		return "NaN"
	}
	text := strconv.FormatFloat(float64(value), 'G', -1, 32)
	if !strings.ContainsAny(text, ".EN") {
		text += ".0"
	}
	return text
}

func copyStruct(in TestStruct) outStruct {
	return outStruct{I: in.I, F: in.F, S: in.S}
}

func copyList(in *TestNode) *outNode {
	var head *outNode
	tail := &head
	for node := in; node != nil; node = node.Next {
		out := &outNode{I: node.I, F: node.F, S: node.S}
		*tail = out
		tail = &out.Next
	}
	return head
}

// generateOrder builds the order of WSTest's OrderBL.getOrder ("Bil1" typo included).
func generateOrder(orderID, customerID, messageSize int32, now string) Order {
	id := strconv.Itoa(int(customerID))
	address := func(prefix [6]string) Address {
		return Address{prefix[0] + id, prefix[1] + id, prefix[2] + id, prefix[3] + id, prefix[4] + id, prefix[5] + id, "12345"}
	}
	items := make([]LineItem, messageSize)
	for i := range items {
		items[i] = LineItem{orderID, int32(i + 1), int32(i + 1), "Test Product " + id, 1, Float{Value: 5}}
	}
	return Order{
		OrderId: orderID, OrderStatus: 1, OrderDate: now, OrderTotalAmount: Float{Value: 50},
		Customer: Customer{
			CustomerId: customerID, ContactFirstName: "FirstName " + id, ContactLastName: "LastName " + id,
			ContactPhone: "425-882-8080", LastActivityDate: now, CreditCardNumber: "892374389740",
			CreditCardExpirationDate: "12/12/2012",
			BillingAddress:           address([6]string{"Bill FirstName ", "Bil1 LastName ", "Bill StreetAddress ", "Street Address Line 2 ", "City ", "State "}),
			ShippingAddress:          address([6]string{"Ship FirstName ", "Ship LastName ", "Ship StreetAddress ", "Street Address Line 2 ", "City ", "State "}),
		},
		LineItems: items,
	}
}

func answer(body requestBody) (interface{}, error) {
	switch {
	case body.EchoVoid != nil:
		return echoVoidResponse{}, nil
	case body.EchoStruct != nil:
		out := make([]outStruct, len(body.EchoStruct.Array))
		for i, item := range body.EchoStruct.Array {
			out[i] = copyStruct(item)
		}
		return echoStructResponse{Result: out}, nil
	case body.EchoList != nil:
		return echoListResponse{Result: copyList(body.EchoList.List)}, nil
	case body.EchoSynthetic != nil:
		synth := body.EchoSynthetic.Synth
		if synth == nil {
			return echoSyntheticResponse{}, nil
		}
		out := &outSynthetic{Strng: synth.Strng, Barray: synth.Barray}
		if synth.Strct != nil {
			copied := copyStruct(*synth.Strct)
			out.Strct = &copied
		}
		return echoSyntheticResponse{Result: out}, nil
	case body.GetOrder != nil:
		request := body.GetOrder
		if request.MessageSize < 0 || request.MessageSize > 100000 {
			return nil, fmt.Errorf("GetOrder/messageSize is %d: it must be between 0 and 100000", request.MessageSize)
		}
		now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		return getOrderResponse{Result: generateOrder(request.OrderID, request.CustomerID, request.MessageSize, now)}, nil
	}
	return nil, fmt.Errorf("the Body holds no WSTest operation")
}

const envelopeStart = `<soap:Envelope xmlns:soap="` + soapNS + `" xmlns:xsi="` + xsiNS + `"><soap:Body>`
const envelopeEnd = `</soap:Body></soap:Envelope>`

func writeFault(w http.ResponseWriter, reason string) {
	var escaped bytes.Buffer
	xml.EscapeText(&escaped, []byte(reason))
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	fmt.Fprintf(w, "%s<soap:Fault><faultcode>soap:Client</faultcode><faultstring>%s</faultstring></soap:Fault>%s", envelopeStart, escaped.String(), envelopeEnd)
}

func handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST a SOAP request", http.StatusMethodNotAllowed)
		return
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	var envelope requestEnvelope
	if err := xml.Unmarshal(data, &envelope); err != nil {
		writeFault(w, "malformed request: "+err.Error())
		return
	}
	response, err := answer(envelope.Body)
	if err != nil {
		writeFault(w, err.Error())
		return
	}
	var out bytes.Buffer
	out.WriteString(envelopeStart)
	if err := xml.NewEncoder(&out).Encode(response); err != nil {
		writeFault(w, err.Error())
		return
	}
	out.WriteString(envelopeEnd)
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(out.Len()))
	w.Write(out.Bytes())
}

func main() {
	port := "8082"
	if len(os.Args) > 1 {
		port = os.Args[1]
	}
	listener, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/WSTest", handle)
	// loadgen suite --tls passes a certificate: served with Go's own TLS (crypto/tls), HTTP/2
	// or HTTP/1.1 by ALPN, as net/http does by default.
	cert, key := os.Getenv("WSTEST_TLS_CERT"), os.Getenv("WSTEST_TLS_KEY")
	if cert != "" && key != "" {
		fmt.Fprintf(os.Stderr, "wstest-go listening on https://%s/WSTest\n", listener.Addr())
		log.Fatal(http.ServeTLS(listener, mux, cert, key))
	}
	fmt.Fprintf(os.Stderr, "wstest-go listening on http://%s/WSTest\n", listener.Addr())
	log.Fatal(http.Serve(listener, mux))
}
