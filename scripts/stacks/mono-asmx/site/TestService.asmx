<%@ WebService Language="C#" Class="WSTest.TestService" %>
