// jtag_tap_key: IEEE 1149.1-style test access port on the system clock (tms and tdi are
// taken on each rising edge), with a 4-bit instruction register and three data registers.
// The TAP controller walks its sixteen states on tms (five edges with tms = 1 reach
// Test-Logic-Reset from anywhere). Capture-IR loads 0101 into the IR shifter, Shift-IR
// shifts it LSB first (tdi in at bit 3, tdo from bit 0), Update-IR makes it the current
// instruction; Test-Logic-Reset selects IDCODE and clears unlocked and ctrl.
// Instructions: 0001 IDCODE (32-bit register, captures 4BA5_C0DF hex), 1000 KEY (16 bits,
// captures {15'b0, unlocked}), 1001 CTRL (8 bits, captures ctrl); any other is BYPASS (one
// bit, captures 0). Shift-DR shifts the selected register LSB first and counts the bits
// shifted since Capture-DR (shift_cnt, saturating at 63). Update-DR with KEY unlocks when
// the register holds C0DE hex and locks otherwise; with CTRL it writes ctrl when unlocked
// (else the write is refused); with IDCODE a scan of 32 bits or more sets id_read.
// Asynchronous active-low reset (TRST).
module jtag_tap_key (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       tms,
    input  wire       tdi,
    output reg  [3:0] tap_state,
    output reg  [3:0] ir,
    output reg  [3:0] ir_shift,
    output reg  [31:0] dr,
    output reg  [5:0] shift_cnt,
    output reg        unlocked,
    output reg  [7:0] ctrl,
    output reg        id_read,
    output wire       tdo
);
    localparam [3:0] TLR = 4'd0, RTI = 4'd1, SEL_DR = 4'd2, CAP_DR = 4'd3, SH_DR = 4'd4,
                     EX1_DR = 4'd5, PAUSE_DR = 4'd6, EX2_DR = 4'd7, UPD_DR = 4'd8,
                     SEL_IR = 4'd9, CAP_IR = 4'd10, SH_IR = 4'd11, EX1_IR = 4'd12,
                     PAUSE_IR = 4'd13, EX2_IR = 4'd14, UPD_IR = 4'd15;
    localparam [3:0] I_IDCODE = 4'b0001, I_KEY = 4'b1000, I_CTRL = 4'b1001;
    localparam [31:0] IDCODE = 32'h4BA5_C0DF;
    localparam [15:0] KEY = 16'hC0DE;

    reg [3:0] next_state;
    always @(*) begin
        case (tap_state)
            TLR:      next_state = tms ? TLR    : RTI;
            RTI:      next_state = tms ? SEL_DR : RTI;
            SEL_DR:   next_state = tms ? SEL_IR : CAP_DR;
            CAP_DR:   next_state = tms ? EX1_DR : SH_DR;
            SH_DR:    next_state = tms ? EX1_DR : SH_DR;
            EX1_DR:   next_state = tms ? UPD_DR : PAUSE_DR;
            PAUSE_DR: next_state = tms ? EX2_DR : PAUSE_DR;
            EX2_DR:   next_state = tms ? UPD_DR : SH_DR;
            UPD_DR:   next_state = tms ? SEL_DR : RTI;
            SEL_IR:   next_state = tms ? TLR    : CAP_IR;
            CAP_IR:   next_state = tms ? EX1_IR : SH_IR;
            SH_IR:    next_state = tms ? EX1_IR : SH_IR;
            EX1_IR:   next_state = tms ? UPD_IR : PAUSE_IR;
            PAUSE_IR: next_state = tms ? EX2_IR : PAUSE_IR;
            EX2_IR:   next_state = tms ? UPD_IR : SH_IR;
            default:  next_state = tms ? SEL_DR : RTI;     // UPD_IR
        endcase
    end

    assign tdo = (tap_state == SH_DR) ? dr[0] : (tap_state == SH_IR) ? ir_shift[0] : 1'b0;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            tap_state <= TLR;
            ir        <= I_IDCODE;
            ir_shift  <= 4'd0;
            dr        <= 32'd0;
            shift_cnt <= 6'd0;
            unlocked  <= 1'b0;
            ctrl      <= 8'd0;
            id_read   <= 1'b0;
        end else begin
            tap_state <= next_state;
            case (tap_state)
                TLR: begin
                    ir       <= I_IDCODE;
                    unlocked <= 1'b0;
                    ctrl     <= 8'd0;
                end
                CAP_IR: ir_shift <= 4'b0101;
                SH_IR:  ir_shift <= {tdi, ir_shift[3:1]};
                UPD_IR: ir <= ir_shift;
                CAP_DR: begin
                    shift_cnt <= 6'd0;
                    case (ir)
                        I_IDCODE: dr <= IDCODE;
                        I_KEY:    dr <= {31'd0, unlocked};
                        I_CTRL:   dr <= {24'd0, ctrl};
                        default:  dr <= 32'd0;
                    endcase
                end
                SH_DR: begin
                    if (shift_cnt != 6'd63)
                        shift_cnt <= shift_cnt + 6'd1;
                    case (ir)
                        I_IDCODE: dr <= {tdi, dr[31:1]};
                        I_KEY:    dr <= {16'd0, tdi, dr[15:1]};
                        I_CTRL:   dr <= {24'd0, tdi, dr[7:1]};
                        default:  dr <= {31'd0, tdi};
                    endcase
                end
                UPD_DR: begin
                    case (ir)
                        I_IDCODE: if (shift_cnt >= 6'd32) id_read <= 1'b1;
                        I_KEY:    unlocked <= (dr[15:0] == KEY);
                        I_CTRL:   if (unlocked) ctrl <= dr[7:0];
                        default:  ;
                    endcase
                end
                default: ;
            endcase
        end
    end
endmodule
