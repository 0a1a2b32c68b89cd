// Vending machine: an item costs 15 cents; accepts nickels and dimes.
module vending_15c (
    input  wire clk,
    input  wire rst_n,
    input  wire nickel,
    input  wire dime,
    output reg  dispense,
    output reg  change
);
    localparam [1:0] C0 = 2'd0, C5 = 2'd1, C10 = 2'd2;

    reg [1:0] credit;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            credit   <= C0;
            dispense <= 1'b0;
            change   <= 1'b0;
        end else begin
            dispense <= 1'b0;
            change   <= 1'b0;
            if (dime) begin
                case (credit)
                    C0:      credit <= C10;
                    C5:      begin credit <= C0; dispense <= 1'b1; end
                    default: begin credit <= C0; dispense <= 1'b1; change <= 1'b1; end
                endcase
            end else if (nickel) begin
                case (credit)
                    C0:      credit <= C5;
                    C5:      credit <= C10;
                    default: begin credit <= C0; dispense <= 1'b1; end
                endcase
            end
        end
    end
endmodule
