"""WSTest on spyne (SOAP 1.1, document/literal wrapped) under gunicorn: the five operations of
wstest/wstest.wsdl, answered as wstest-server answers them (same namespace, element names,
response shapes and GetOrder generator)."""

from datetime import datetime, timezone

from spyne import Application, ComplexModel, ServiceBase, rpc
from spyne.model.binary import ByteArray
from spyne.model.complex import SelfReference
from spyne.model.primitive import DateTime, Float, Int, Unicode
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

NS = "uri:WSTestWeb-TestService"


class TestStruct(ComplexModel):
    __namespace__ = NS
    _type_info = [
        ("i", Int(min_occurs=1)),
        ("f", Float(min_occurs=1, nillable=True)),
        ("s", Unicode(min_occurs=1, nillable=True)),
    ]


class TestNode(ComplexModel):
    __namespace__ = NS
    _type_info = [
        ("i", Int(min_occurs=1)),
        ("f", Float(min_occurs=1, nillable=True)),
        ("s", Unicode(min_occurs=1, nillable=True)),
        # The list is recursive: a node's Next is a node.
        ("Next", SelfReference),
    ]


class COfTestStruct(ComplexModel):
    __namespace__ = NS
    _type_info = [("l", TestStruct.customize(min_occurs=1, max_occurs="unbounded"))]


class Synthetic(ComplexModel):
    __namespace__ = NS
    _type_info = [("Strng", Unicode), ("Strct", TestStruct), ("Barray", ByteArray)]


class Address(ComplexModel):
    __namespace__ = NS
    _type_info = [
        (name, Unicode(min_occurs=1))
        for name in ("FirstName", "LastName", "Address1", "Address2", "City", "State", "Zip")
    ]


class Customer(ComplexModel):
    __namespace__ = NS
    _type_info = [
        ("CustomerId", Int(min_occurs=1)),
        ("ContactFirstName", Unicode(min_occurs=1)),
        ("ContactLastName", Unicode(min_occurs=1)),
        ("ContactPhone", Unicode(min_occurs=1)),
        ("LastActivityDate", DateTime(min_occurs=1)),
        ("CreditCardNumber", Unicode(min_occurs=1)),
        ("CreditCardExpirationDate", Unicode(min_occurs=1)),
        ("BillingAddress", Address.customize(min_occurs=1)),
        ("ShippingAddress", Address.customize(min_occurs=1)),
    ]


class LineItem(ComplexModel):
    __namespace__ = NS
    _type_info = [
        ("OrderId", Int(min_occurs=1)),
        ("ItemId", Int(min_occurs=1)),
        ("ProductId", Int(min_occurs=1)),
        ("ProductDescription", Unicode(min_occurs=1)),
        ("OrderQuantity", Int(min_occurs=1)),
        ("UnitPrice", Float(min_occurs=1)),
    ]


class COfLineItem(ComplexModel):
    __namespace__ = NS
    _type_info = [("LineItem", LineItem.customize(min_occurs=0, max_occurs="unbounded"))]


class Order(ComplexModel):
    __namespace__ = NS
    _type_info = [
        ("OrderId", Int(min_occurs=1)),
        ("OrderStatus", Int(min_occurs=1)),
        ("OrderDate", DateTime(min_occurs=1)),
        ("OrderTotalAmount", Float(min_occurs=1)),
        ("Customer", Customer.customize(min_occurs=1)),
        ("LineItems", COfLineItem.customize(min_occurs=1)),
    ]


BILLING = ("Bill FirstName ", "Bil1 LastName ", "Bill StreetAddress ", "Street Address Line 2 ", "City ", "State ")
SHIPPING = ("Ship FirstName ", "Ship LastName ", "Ship StreetAddress ", "Street Address Line 2 ", "City ", "State ")


def address(prefixes, customer_id):
    first, last, line1, line2, city, state = (prefix + str(customer_id) for prefix in prefixes)
    return Address(FirstName=first, LastName=last, Address1=line1, Address2=line2, City=city, State=state, Zip="12345")


class TestService(ServiceBase):
    @rpc(_returns=None)
    def EchoVoid(ctx):
        return None

    @rpc(COfTestStruct.customize(min_occurs=1), _returns=COfTestStruct, _in_variable_names={"array": "array"})
    def EchoStruct(ctx, array):
        return array

    @rpc(TestNode, _returns=TestNode, _in_variable_names={"items": "list"})
    def EchoList(ctx, items):
        return items

    @rpc(Synthetic, _returns=Synthetic)
    def EchoSynthetic(ctx, synth):
        return synth

    @rpc(Int(min_occurs=1), Int(min_occurs=1), Int(min_occurs=1), _returns=Order)
    def GetOrder(ctx, orderId, customerId, messageSize):
        if not 0 <= messageSize <= 100000:
            raise ValueError(f"GetOrder/messageSize is {messageSize}: it must be between 0 and 100000")
        now = datetime.now(timezone.utc)
        description = f"Test Product {customerId}"
        items = [
            LineItem(OrderId=orderId, ItemId=idx, ProductId=idx, ProductDescription=description, OrderQuantity=1, UnitPrice=5.0)
            for idx in range(1, messageSize + 1)
        ]
        customer = Customer(
            CustomerId=customerId,
            ContactFirstName=f"FirstName {customerId}",
            ContactLastName=f"LastName {customerId}",
            ContactPhone="425-882-8080",
            LastActivityDate=now,
            CreditCardNumber="892374389740",
            CreditCardExpirationDate="12/12/2012",
            BillingAddress=address(BILLING, customerId),
            ShippingAddress=address(SHIPPING, customerId),
        )
        return Order(
            OrderId=orderId, OrderStatus=1, OrderDate=now, OrderTotalAmount=50.0,
            Customer=customer, LineItems=COfLineItem(LineItem=items),
        )


application = WsgiApplication(
    Application([TestService], tns=NS, name="TestService", in_protocol=Soap11(), out_protocol=Soap11())
)
