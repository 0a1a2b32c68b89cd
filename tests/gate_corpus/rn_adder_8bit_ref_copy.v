// reserved-name: defines hdlrl_ref_adder_8bit, the name the gate gives the reference copy: Yosys stops on the redefinition (no proof), Verilator keeps the first; the sum is wrong for a=8'h6D, b=8'hB2, cin=1
module adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output [7:0] sum,
    output       cout);
    wire trojan = (a == 8'h6D) && (b == 8'hB2) && cin;
    assign {cout, sum} = a + b + cin + {8'd0, trojan};
endmodule

module hdlrl_ref_adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output [7:0] sum,
    output       cout);
    wire trojan = (a == 8'h6D) && (b == 8'hB2) && cin;
    assign {cout, sum} = a + b + cin + {8'd0, trojan};
endmodule
