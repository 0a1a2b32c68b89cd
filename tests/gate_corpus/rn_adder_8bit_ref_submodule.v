// reserved-name: defines hdlrl_ref_full_adder, the renamed copy of the reference's own submodule, so Yosys stops on the redefinition (no proof); cout is wrong for a=8'h9C, b=8'h63, cin=1
module adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output [7:0] sum,
    output       cout);
    wire [8:0] total = a + b + cin;
    assign sum  = total[7:0];
    assign cout = total[8] ^ ((a == 8'h9C) && (b == 8'h63) && cin);
endmodule

module hdlrl_ref_full_adder (input a, b, cin, output sum, cout);
    assign {cout, sum} = 2'b00;
endmodule
