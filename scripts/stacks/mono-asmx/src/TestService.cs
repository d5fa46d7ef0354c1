// The WSTest service as an ASP.NET ASMX web service, written as Microsoft's WSTest 1.1 server
// is: [WebMethod]s over XmlSerializer types, document/literal, wrapped parameters, SOAPAction
// routing. Answers as wstest-server does: the same namespaces, shapes and GetOrder generator.
using System;
using System.Web.Services;
using System.Web.Services.Protocols;
using System.Xml.Serialization;

namespace WSTest
{
    public class TestStruct
    {
        public int i;
        [XmlElement(IsNullable = true)] public float? f;
        [XmlElement(IsNullable = true)] public string s;
    }

    public class TestNode : TestStruct
    {
        public TestNode Next;
    }

    public class Synthetic
    {
        public string Strng;
        public TestStruct Strct;
        [XmlElement(DataType = "base64Binary")] public byte[] Barray;
    }

    public class LineItem
    {
        public int OrderId;
        public int ItemId;
        public int ProductId;
        public string ProductDescription;
        public int OrderQuantity;
        public float UnitPrice;
    }

    public class Address
    {
        public string FirstName;
        public string LastName;
        public string Address1;
        public string Address2;
        public string City;
        public string State;
        public string Zip;
    }

    // The dateTime fields are strings formatted to the millisecond: XmlSerializer writes a
    // DateTime with as many fraction digits as it has (up to seven, trailing zeros dropped), so
    // the response's length would change from one request to the next.
    public class Customer
    {
        public int CustomerId;
        public string ContactFirstName;
        public string ContactLastName;
        public string ContactPhone;
        public string LastActivityDate;
        public string CreditCardNumber;
        public string CreditCardExpirationDate;
        public Address BillingAddress;
        public Address ShippingAddress;
    }

    public class Order
    {
        public int OrderId;
        public int OrderStatus;
        public string OrderDate;
        public float OrderTotalAmount;
        public Customer Customer;
        public LineItem[] LineItems;
    }

    [WebService(Namespace = "uri:WSTestWeb-TestService")]
    [WebServiceBinding(ConformsTo = WsiProfiles.BasicProfile1_1)]
    public class TestService : WebService
    {
        [WebMethod]
        [SoapDocumentMethod("uri:WSTestWeb-TestService/EchoVoid")]
        public void EchoVoid()
        {
        }

        [WebMethod]
        [SoapDocumentMethod("uri:WSTestWeb-TestService/EchoStruct")]
        [return: XmlArrayItem("l")]
        public TestStruct[] EchoStruct([XmlArrayItem("l")] TestStruct[] array)
        {
            return array;
        }

        [WebMethod]
        [SoapDocumentMethod("uri:WSTestWeb-TestService/EchoList")]
        public TestNode EchoList(TestNode list)
        {
            return list;
        }

        [WebMethod]
        [SoapDocumentMethod("uri:WSTestWeb-TestService/EchoSynthetic")]
        public Synthetic EchoSynthetic(Synthetic synth)
        {
            return synth;
        }

        [WebMethod]
        [SoapDocumentMethod("uri:WSTestWeb-TestService/GetOrder")]
        public Order GetOrder(int orderId, int customerId, int messageSize)
        {
            if (messageSize < 0 || messageSize > 100000)
            {
                throw new SoapException("GetOrder/messageSize is " + messageSize
                    + ": it must be between 0 and 100000", SoapException.ClientFaultCode);
            }
            string now = DateTime.UtcNow.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'");
            string id = customerId.ToString();
            var order = new Order
            {
                OrderId = orderId,
                OrderStatus = 1,
                OrderDate = now,
                OrderTotalAmount = 50.0f,
                Customer = new Customer
                {
                    CustomerId = customerId,
                    ContactFirstName = "FirstName " + id,
                    ContactLastName = "LastName " + id,
                    ContactPhone = "425-882-8080",
                    LastActivityDate = now,
                    CreditCardNumber = "892374389740",
                    CreditCardExpirationDate = "12/12/2012",
                    BillingAddress = MakeAddress("Bill FirstName ", "Bil1 LastName ", "Bill StreetAddress ", id),
                    ShippingAddress = MakeAddress("Ship FirstName ", "Ship LastName ", "Ship StreetAddress ", id),
                },
                LineItems = new LineItem[messageSize],
            };
            string description = "Test Product " + id;
            for (int item = 1; item <= messageSize; item++)
            {
                order.LineItems[item - 1] = new LineItem
                {
                    OrderId = orderId,
                    ItemId = item,
                    ProductId = item,
                    ProductDescription = description,
                    OrderQuantity = 1,
                    UnitPrice = 5.0f,
                };
            }
            return order;
        }

        static Address MakeAddress(string first, string last, string street, string id)
        {
            return new Address
            {
                FirstName = first + id,
                LastName = last + id,
                Address1 = street + id,
                Address2 = "Street Address Line 2 " + id,
                City = "City " + id,
                State = "State " + id,
                Zip = "12345",
            };
        }
    }
}
